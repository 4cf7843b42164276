// `vigil-recorder license verify FILE`: prints the license verdict; exit 0 when valid, 1 when not, 2 when it cannot judge.
import type { CliOptions } from './cli.js';
import { ConfigError, loadConfig } from './config/load.js';
import { judgeLicense } from './license/license-verdict.js';

export async function runLicenseVerify(cli: CliOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const file = cli.licenseFile;
  if (file === undefined) return 2;
  let publicKey = cli.publicKey;
  if (publicKey === undefined) {
    try {
      const config = await loadConfig({ file: cli.configFile, ...(cli.confDir === undefined ? {} : { confDir: cli.confDir }) });
      publicKey = config.license.public_key;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      err.write(`vigil-recorder: ${e.message}\nvigil-recorder: give the key with --public-key KEY instead\n`);
      return 2;
    }
  }
  // The file was named explicitly, so a missing one is invalid whatever license.required says.
  const verdict = await judgeLicense({ file, publicKey, required: true }, new Date());
  if (verdict.valid && verdict.state === 'valid') {
    out.write(`valid: ${file}: customer ${JSON.stringify(verdict.customer)}, max_cameras ${verdict.max_cameras}, not after ${verdict.not_after}\n`);
    return 0;
  }
  out.write(`invalid: ${verdict.valid ? 'no license' : `${verdict.state}: ${verdict.reason}`}\n`);
  return 1;
}

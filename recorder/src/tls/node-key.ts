// A node's own private key (ECDSA P-256), made on the node when it has none and kept beside its certificate: it never
// leaves the node (only its public half goes out, in certificate requests).
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';

/** The key in `keyFile`, or a new one written there (mode 0600, in a 0700 folder) when it is missing or unusable. */
export async function ensureNodeKey(keyFile: string, log: Logger): Promise<KeyObject> {
  let text: string | undefined;
  try {
    text = await readFile(keyFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== undefined) {
    try {
      const key = createPrivateKey(text);
      if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return key;
      log.warn({ key_file: keyFile }, 'the node key is not ECDSA P-256; making a new one (its certificate will be issued again)');
    } catch (err) {
      log.warn({ key_file: keyFile, err: (err as Error).message }, 'the node key cannot be read; making a new one (its certificate will be issued again)');
    }
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await mkdir(dirname(keyFile), { recursive: true, mode: 0o700 });
  const tmp = `${keyFile}.new`;
  await writeFile(tmp, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await rename(tmp, keyFile);
  log.info({ key_file: keyFile }, 'node key made (ECDSA P-256); it stays on this node');
  return privateKey;
}

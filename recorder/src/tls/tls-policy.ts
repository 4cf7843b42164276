// The TLS policy of the API listener: TLS 1.2 and 1.3 only, forward-secret AEAD cipher suites only.
import type { SecureContextOptions } from 'node:tls';

export const TLS_MIN_VERSION = 'TLSv1.2';

/**
 * TLS 1.3's three suites, then for TLS 1.2 ECDHE key exchange with AES-GCM or ChaCha20-Poly1305 only (Mozilla's
 * "intermediate" profile without the finite-field DHE suites): no CBC, no RSA key exchange, no SHA-1 MACs.
 */
export const TLS_CIPHER_SUITES: readonly string[] = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
];

/** The secure-context options of a certificate and key under this policy. */
export function secureContextOptions(pair: { certPem: string; keyPem: string }): SecureContextOptions {
  return {
    cert: pair.certPem,
    key: pair.keyPem,
    minVersion: TLS_MIN_VERSION,
    ciphers: TLS_CIPHER_SUITES.join(':'),
    // The client's order among these suites: all are strong, and clients know which they run fastest (ChaCha20 on phones).
    honorCipherOrder: false,
  };
}

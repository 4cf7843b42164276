// Parses WWW-Authenticate challenges (RFC 9110 §11.6.1) and picks the strongest one we can answer.

export interface Challenge {
  /** Lower-case scheme: `digest`, `basic`, … */
  scheme: string;
  /** Parameter names in lower case; values unquoted. */
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

/**
 * Every challenge in the given header values. One value may hold several challenges
 * (`Digest realm="a", nonce="b", Basic realm="a"`), and a header may repeat.
 */
export function parseChallenges(values: readonly string[]): Challenge[] {
  const out: Challenge[] = [];
  for (const value of values) out.push(...parseOne(value));
  return out;
}

function parseOne(input: string): Challenge[] {
  const out: Challenge[] = [];
  let rest = input;
  let current: Challenge | undefined;
  while (true) {
    rest = rest.replace(/^[\s,]+/, '');
    const token = TOKEN.exec(rest)?.[0];
    if (token === undefined) break; // end, or garbage: keep what we have
    rest = rest.slice(token.length);
    const param = /^\s*=\s*(?="|[^\s,=])/.exec(rest);
    if (param !== null && current !== undefined) {
      rest = rest.slice(param[0].length);
      const [value, tail] = rest.startsWith('"') ? readQuoted(rest) : readToken(rest);
      current.params[token.toLowerCase()] = value;
      rest = tail;
      continue;
    }
    // A new challenge: its scheme, perhaps followed by a token68 (`Negotiate abc==`).
    current = { scheme: token.toLowerCase(), params: {} };
    out.push(current);
    const token68 = /^\s+[A-Za-z0-9\-._~+/]+=*\s*(?:,|$)/.exec(rest);
    if (token68 !== null) rest = rest.slice(token68[0].length);
  }
  return out;
}

function readQuoted(s: string): [string, string] {
  let value = '';
  let i = 1;
  while (i < s.length && s[i] !== '"') {
    if (s[i] === '\\' && i + 1 < s.length) i += 1;
    value += s.charAt(i);
    i += 1;
  }
  return [value, s.slice(i + 1)];
}

function readToken(s: string): [string, string] {
  const value = /^[^,\s]*/.exec(s)?.[0] ?? '';
  return [value, s.slice(value.length)];
}

const DIGEST_ALGORITHMS = ['SHA-256-SESS', 'SHA-256', 'MD5-SESS', 'MD5'] as const;
export type DigestAlgorithm = (typeof DIGEST_ALGORITHMS)[number];

/** The Digest algorithm a challenge names (MD5 when absent), or undefined when we cannot compute it. */
export function digestAlgorithm(ch: Challenge): DigestAlgorithm | undefined {
  const name = (ch.params['algorithm'] ?? 'MD5').toUpperCase();
  return (DIGEST_ALGORITHMS as readonly string[]).includes(name) ? (name as DigestAlgorithm) : undefined;
}

/** Digest with SHA-256 before MD5, then Basic; undefined when none can be answered. */
export function strongestChallenge(challenges: readonly Challenge[]): Challenge | undefined {
  const rank = (ch: Challenge): number => {
    if (ch.scheme === 'digest') {
      const alg = digestAlgorithm(ch);
      if (alg === undefined || ch.params['nonce'] === undefined) return -1;
      return alg.startsWith('SHA-256') ? 3 : 2;
    }
    return ch.scheme === 'basic' ? 1 : -1;
  };
  let best: Challenge | undefined;
  for (const ch of challenges) if (rank(ch) >= 0 && (best === undefined || rank(ch) > rank(best))) best = ch;
  return best;
}

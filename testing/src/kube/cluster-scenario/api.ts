// Vigil API requests from a scenario: the token, and 307s followed as a user's client does (same method, own token).
import type { ClusterDriver } from './driver.js';

export interface ApiAnswer {
  status: number;
  text: string;
  /** Every URL asked, in order: the first is the API's, each later one a 307's Location (as named, before reach()). */
  hops: string[];
}

/** GET (or another method) of `path` on the API, following up to `maxRedirects` 307s through driver.reach(). */
export async function apiRequest(driver: ClusterDriver, path: string, opts: { method?: string; body?: unknown; maxRedirects?: number; timeoutMs?: number } = {}): Promise<ApiAnswer> {
  const hops: string[] = [];
  let named = new URL(path, driver.apiBase()).toString();
  let url = named;
  for (let hop = 0; ; hop++) {
    hops.push(named);
    const res = await (driver.fetch ?? fetch)(url, {
      method: opts.method ?? 'GET',
      redirect: 'manual',
      headers: { authorization: `Bearer ${driver.token}`, ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
    });
    const location = res.headers.get('location');
    if (res.status !== 307 || location === null) return { status: res.status, text: await res.text(), hops };
    await res.body?.cancel();
    if (hop >= (opts.maxRedirects ?? 3)) throw new Error(`${path}: more than ${opts.maxRedirects ?? 3} redirects (${[...hops, location].join(' → ')})`);
    named = new URL(location, url).toString();
    url = await driver.reach(named);
  }
}

/** The answer's JSON; throws with the status and body when it is not a 200. */
export async function apiJson<T>(driver: ClusterDriver, path: string, opts: Parameters<typeof apiRequest>[2] = {}): Promise<{ body: T; hops: string[] }> {
  const answer = await apiRequest(driver, path, opts);
  if (answer.status !== 200) throw new Error(`${opts.method ?? 'GET'} ${path} answered ${answer.status} (via ${answer.hops.join(' → ')}): ${answer.text.slice(0, 300)}`);
  return { body: JSON.parse(answer.text) as T, hops: answer.hops };
}

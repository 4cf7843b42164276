// Removes camera credentials from URLs and free text before they reach a log line or an answer.

const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@'"]*@/gi;
const PASSWORD_PARAM = /((?:password|passwd|pwd|pass)=)[^&\s'"]*/gi;

/** `rtsp://user:pass@host/path` → `rtsp://***@host/path`; also masks `password=` query values. */
export function redactUrl(url: string): string {
  return redactText(url);
}

/** Redacts every URL userinfo and password parameter in a text, plus the given literal secrets. */
export function redactText(text: string, secrets: Iterable<string> = []): string {
  let out = text.replace(URL_USERINFO, '$1***@').replace(PASSWORD_PARAM, '$1***');
  for (const secret of secrets) {
    if (secret.length < 3) continue;
    // The same secret as it appears inside a JSON string and inside a URL.
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])) {
      out = out.split(form).join('***');
    }
  }
  return out;
}

/** The username and password carried by a URL, decoded; undefined when there are none. */
export function urlCredentials(url: string): { username: string; password: string } | undefined {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return undefined;
    return { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  } catch {
    return undefined;
  }
}

// Turns the `listen` setting into a host and port, applying the loopback rule when auth is disabled.
export const DEFAULT_PORT = 9997;

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * `"host:port"` binds that host; `":port"` binds every interface, except that with
 * authentication disabled an address is only non-loopback when `listen` names a host.
 */
export function resolveListen(listen: string | undefined, authDisabled: boolean, defaultPort = DEFAULT_PORT): ListenAddress {
  const anyHost = authDisabled ? '127.0.0.1' : '0.0.0.0';
  if (listen === undefined) return { host: anyHost, port: defaultPort };
  const colon = listen.lastIndexOf(':');
  let host = listen.slice(0, colon);
  const port = Number(listen.slice(colon + 1));
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? anyHost : host, port };
}

// Resolves the node's name: the nodeName setting, else the system hostname.
import { hostname } from 'node:os';

export interface ResolvedNodeName {
  name: string;
  from: 'nodeName' | 'hostname' | 'none';
}

export function resolveNodeName(nodeName: string, readHostname: () => string = hostname): ResolvedNodeName {
  const configured = nodeName.trim();
  if (configured !== '') return { name: configured, from: 'nodeName' };
  let host = '';
  try {
    host = readHostname().trim();
  } catch {
    host = '';
  }
  return host === '' ? { name: '', from: 'none' } : { name: host, from: 'hostname' };
}

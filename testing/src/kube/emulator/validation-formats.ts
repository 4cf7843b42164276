// The API's string formats (k8s.io/apimachinery util/validation and validate/content, release 1.35): each answers the messages the real checks answer, [] when valid.
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const C_IDENTIFIER_FMT = '[A-Za-z_][A-Za-z0-9_]*';
const PERCENT_FMT = '[0-9]+%';
const HTTP_HEADER_NAME_FMT = '[-A-Za-z0-9]+';

const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const DNS1123_LABEL = anchored(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN = anchored(DNS1123_SUBDOMAIN_FMT);
const DNS1035_LABEL = anchored(DNS1035_LABEL_FMT);
const LABEL_KEY = anchored(LABEL_KEY_FMT);
const LABEL_VALUE = anchored(LABEL_VALUE_FMT);

/** Go's byte length of a string (the limits count UTF-8 bytes). */
function bytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

export function regexError(message: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${fmt}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** util/validation says "characters", validate/content (label keys and values) says "bytes". */
function maxLenError(length: number, unit: 'characters' | 'bytes' = 'characters'): string {
  return `must be no more than ${length} ${unit}`;
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDns1123Subdomain(value: string, unit: 'characters' | 'bytes' = 'characters'): string[] {
  const errs: string[] = [];
  if (bytes(value) > 253) errs.push(maxLenError(253, unit));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

export function isWildcardDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > 253) errs.push(maxLenError(253));
  if (!anchored(`\\*\\.${DNS1123_SUBDOMAIN_FMT}`).test(value)) {
    errs.push(regexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character", `\\*\\.${DNS1123_SUBDOMAIN_FMT}`, '*.example.com'));
  }
  return errs;
}

export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  }
  return errs;
}

const LABEL_KEY_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** A qualified name (label keys, annotation keys, finalizers): an optional DNS subdomain prefix and '/', then a name. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0] as string;
  else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDns1123Subdomain(prefix, 'bytes').map((m) => `prefix part ${m}`));
  } else {
    return [`a valid label key ${regexError(LABEL_KEY_MESSAGE, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (bytes(name) > 63) errs.push(`name part ${maxLenError(63, 'bytes')}`);
  if (!LABEL_KEY.test(name)) errs.push(`name part ${regexError(LABEL_KEY_MESSAGE, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > 63) errs.push(maxLenError(63, 'bytes'));
  if (!LABEL_VALUE.test(value)) {
    errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IANA_SVC_NAME: what a named port may be called. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (bytes(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

function chDirPrefix(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > 253) errs.push(maxLenError(253));
  if (!anchored(CONFIG_MAP_KEY_FMT).test(value)) errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  errs.push(...chDirPrefix(value));
  return errs;
}

/** Environment variable names since RelaxedEnvironmentVariableValidation (GA in 1.34): printable ASCII but '='. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push('environment variable name must be non-empty');
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (code > 0x7e || code < 0x20 || ch === '=') {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

export function isCIdentifier(value: string): string[] {
  return anchored(C_IDENTIFIER_FMT).test(value) ? [] : [regexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'", C_IDENTIFIER_FMT, 'my_name', 'MY_NAME', 'MyName')];
}

export function isValidPercent(value: string): string[] {
  return anchored(PERCENT_FMT).test(value) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%')];
}

export function isHttpHeaderName(value: string): string[] {
  return anchored(HTTP_HEADER_NAME_FMT).test(value) ? [] : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", HTTP_HEADER_NAME_FMT, 'X-Header-Name')];
}

/** Names of kinds that only need to be URL path segments (RBAC objects, Events, custom kinds with such rules). */
export function isPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** The IP address forms the API refuses where it wants a DNS name. */
export function isIpAddress(value: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(value) || (value.includes(':') && /^[0-9a-fA-F:.]+$/.test(value));
}

// resource.Quantity as k8s.io/apimachinery parses it: the grammar, its two error messages, and the value for comparisons.
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export interface Quantity {
  /** The quantity's value (a float: enough to compare requests with limits and to see a sign). */
  value: number;
  /** As written (the API prints quantities in canonical form; Vigil's tests compare only those already canonical). */
  text: string;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** Splits "1.5Gi" into sign, number and suffix the way parseQuantityString does; undefined = the format error. */
function split(str: string): { negative: boolean; number: string; suffix: string } | undefined {
  let pos = 0;
  let negative = false;
  if (str[0] === '-' || str[0] === '+') {
    negative = str[0] === '-';
    pos = 1;
  }
  const numberStart = pos;
  while (pos < str.length && /[0-9]/.test(str[pos] as string)) pos++;
  if (str[pos] === '.') {
    pos++;
    while (pos < str.length && /[0-9]/.test(str[pos] as string)) pos++;
  }
  const number = str.slice(numberStart, pos);
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos] as string)) pos++;
  if (pos < str.length && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < str.length && /[0-9]/.test(str[pos] as string)) pos++;
  if (pos < str.length) return undefined;
  return { negative, number, suffix: str.slice(suffixStart) };
}

/** Parses a quantity as the API decodes one (string or JSON number); answers the decoding error's message otherwise. */
export function parseQuantity(raw: string | number): Quantity | { error: string } {
  const str = typeof raw === 'number' ? String(raw) : raw.trim();
  if (str.length === 0) return { error: QUANTITY_FORMAT_ERROR };
  if (str === '0') return { value: 0, text: str };
  const parts = split(str);
  if (parts === undefined) return { error: QUANTITY_FORMAT_ERROR };
  const digits = parts.number === '' || parts.number === '.' ? '0' : parts.number;
  const mantissa = Number(digits) * (parts.negative ? -1 : 1);
  let value: number;
  if (parts.suffix in DECIMAL) value = mantissa * 10 ** (DECIMAL[parts.suffix] as number);
  else if (parts.suffix in BINARY) value = mantissa * 2 ** (BINARY[parts.suffix] as number);
  else if (parts.suffix.length > 1 && (parts.suffix[0] === 'e' || parts.suffix[0] === 'E') && /^[-+]?[0-9]+$/.test(parts.suffix.slice(1))) {
    value = mantissa * 10 ** Number(parts.suffix.slice(1));
  } else return { error: QUANTITY_SUFFIX_ERROR };
  return { value, text: str };
}

export function isQuantityError(q: Quantity | { error: string }): q is { error: string } {
  return 'error' in q;
}

// What representation a client asked for in its Accept header: the object itself, a Table, or PartialObjectMetadata.
export type Representation =
  | { form: 'object' }
  | { form: 'Table'; version: 'v1' | 'v1beta1' }
  | { form: 'PartialObjectMetadata'; version: 'v1' | 'v1beta1' };

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(accept: string | undefined): MediaRange[] {
  if (accept === undefined || accept === '') return [];
  return accept.split(',').map((part) => {
    const [type, ...rest] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of rest) {
      const [k, v] = p.split('=');
      if (k !== undefined && v !== undefined) params[k.trim()] = v.trim();
    }
    return { type: (type ?? '').toLowerCase(), params };
  });
}

/** The first representation in the Accept list the emulator can produce (JSON only). */
export function negotiate(accept: string | undefined): Representation {
  for (const range of parseAccept(accept)) {
    if (range.type !== 'application/json' && range.type !== '*/*' && range.type !== 'application/*') continue;
    const as = range.params.as;
    if (as === undefined) return { form: 'object' };
    if (range.params.g !== 'meta.k8s.io') continue;
    const version = range.params.v === 'v1beta1' ? 'v1beta1' : range.params.v === 'v1' ? 'v1' : undefined;
    if (version === undefined) continue;
    if (as === 'Table') return { form: 'Table', version };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { form: 'PartialObjectMetadata', version };
  }
  return { form: 'object' };
}

/** Whether the client asked for aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList). */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  return parseAccept(accept).some((r) => r.params.g === 'apidiscovery.k8s.io' && r.params.v === 'v2' && r.params.as === 'APIGroupDiscoveryList');
}

export function contentTypeOf(rep: Representation): string {
  if (rep.form === 'object') return 'application/json';
  return `application/json;as=${rep.form === 'Table' ? 'Table' : 'PartialObjectMetadataList'};v=${rep.version};g=meta.k8s.io`;
}

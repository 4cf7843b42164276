// What a recorder reports about itself on its heartbeat Lease (url, public URL, version, cameras), written and read.
import { NodeReportAnnotations } from '@vigil/crds';
import type { Lease } from '../api/types.js';

export interface NodeReport {
  url?: string;
  publicUrl?: string;
  version?: string;
  cameras?: number;
  /** The served certificate's end, and from when the recorder counts it as expiring (RFC 3339). */
  certificateNotAfter?: string;
  certificateExpiringFrom?: string;
}

/** The report a heartbeat Lease carries ({} when it carries none). */
export function reportOf(lease: Lease | undefined): NodeReport {
  const a = lease?.metadata.annotations ?? {};
  const report: NodeReport = {};
  if (a[NodeReportAnnotations.url]) report.url = a[NodeReportAnnotations.url];
  if (a[NodeReportAnnotations.publicUrl]) report.publicUrl = a[NodeReportAnnotations.publicUrl];
  if (a[NodeReportAnnotations.version]) report.version = a[NodeReportAnnotations.version];
  const cameras = Number(a[NodeReportAnnotations.cameras]);
  if (a[NodeReportAnnotations.cameras] !== undefined && Number.isInteger(cameras) && cameras >= 0) report.cameras = cameras;
  for (const key of ['certificateNotAfter', 'certificateExpiringFrom'] as const) {
    const value = a[NodeReportAnnotations[key]];
    if (value !== undefined && Number.isFinite(Date.parse(value))) report[key] = value;
  }
  return report;
}

/** The Lease annotations of a report; a field without a value is removed (null, for a merge of the annotations). */
export function reportAnnotations(report: NodeReport): Record<string, string | null> {
  return {
    [NodeReportAnnotations.url]: report.url ?? null,
    [NodeReportAnnotations.publicUrl]: report.publicUrl ?? null,
    [NodeReportAnnotations.version]: report.version ?? null,
    [NodeReportAnnotations.cameras]: report.cameras === undefined ? null : String(report.cameras),
    [NodeReportAnnotations.certificateNotAfter]: report.certificateNotAfter ?? null,
    [NodeReportAnnotations.certificateExpiringFrom]: report.certificateExpiringFrom ?? null,
  };
}

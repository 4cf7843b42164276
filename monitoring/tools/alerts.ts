// Vigil's Prometheus alerts, the one source of the chart's PrometheusRule and the packages' rules file, each with
// the series that make it fire and the healthy series that must not (the promtool unit tests are written from them).
import { defineAlert, type AlertDefinition } from './alert-definition.js';

export const RUNBOOK_BASE = 'https://github.com/vigil/vigil/blob/main/docs/runbooks.md';

const DAY = 86_400;

/** The alerts, in the order of docs/runbooks.md. */
export const ALERTS: AlertDefinition[] = [
  defineAlert({
    alert: 'VigilCameraNotRecording',
    target: 'all',
    // The gauge counts from the last fragment, across reconnects: above 120 the camera has recorded nothing for 2 minutes.
    expr: 'vigil_camera_seconds_since_last_fragment > 120',
    for: '0m',
    severity: 'critical',
    summary: 'Camera {{ $labels.camera }} has not recorded for 2 minutes',
    description: 'Camera {{ $labels.camera }} on {{ $labels.instance }} has delivered no video for more than 2 minutes: nothing of it is being recorded.',
    at: '5m',
    series: [
      { series: 'vigil_camera_seconds_since_last_fragment{camera="gate", instance="node-a:9998"}', firing: '1 1 1 61 121 181', healthy: '0.2 0.4 0.1 0.3 0.2 0.4' },
    ],
    fires: [{ camera: 'gate', instance: 'node-a:9998' }],
  }),
  defineAlert({
    alert: 'VigilCamerasNotRecording',
    target: 'kubernetes',
    // The leader's count of Cameras by phase: Pending (no node), Assigned (not yet recording) or Failed for 2 minutes.
    expr: 'sum without (phase) (vigil_operator_cameras{phase!="Recording"}) > 0',
    for: '2m',
    severity: 'critical',
    summary: 'Cameras are not recording',
    description: 'Some Cameras have been Pending, Assigned or Failed instead of Recording for 2 minutes: kubectl get cameras -A shows which and why.',
    at: '5m',
    series: [
      { series: 'vigil_operator_cameras{phase="Recording", instance="op-1:8080"}', firing: '3x6', healthy: '4x6' },
      // Healthy: a Camera just applied is Pending for a moment, not for 2 minutes.
      { series: 'vigil_operator_cameras{phase="Pending", instance="op-1:8080"}', firing: '0 1 1 1 1 1', healthy: '0 0 0 0 1 0' },
      { series: 'vigil_operator_cameras{phase="Failed", instance="op-1:8080"}', firing: '0x6' },
    ],
    fires: [{ instance: 'op-1:8080' }],
  }),
  defineAlert({
    alert: 'VigilRecorderNodeOffline',
    target: 'kubernetes',
    expr: 'vigil_operator_members{state="offline"} > 0',
    for: '2m',
    severity: 'critical',
    summary: 'A recorder node is offline',
    description: 'A member recorder node has not renewed its heartbeat for 2 minutes (kubectl get recordernodes shows which); its cameras move to other nodes while the cluster has quorum.',
    at: '5m',
    series: [
      { series: 'vigil_operator_members{state="offline", instance="op-1:8080"}', firing: '0 1 1 1 1 1', healthy: '0 0 1 0 0 0' },
      { series: 'vigil_operator_members{state="online", instance="op-1:8080"}', firing: '3 2 2 2 2 2', healthy: '3 3 2 3 3 3' },
    ],
    fires: [{ state: 'offline', instance: 'op-1:8080' }],
  }),
  defineAlert({
    alert: 'VigilRecorderDown',
    target: 'packages',
    // Prometheus's own series of the scrape: job "vigil" as in docs/metrics.md's prometheus.yml.
    expr: 'up{job="vigil"} == 0',
    for: '2m',
    severity: 'critical',
    summary: 'Recorder {{ $labels.instance }} is down',
    description: 'Prometheus has not scraped {{ $labels.instance }} for 2 minutes: the vigil service or its host is down, and its cameras are not recorded.',
    at: '5m',
    series: [
      { series: 'up{job="vigil", instance="node-a:9998"}', firing: '1 0 0 0 0 0', healthy: '1 1 0 1 1 1' },
    ],
    fires: [{ job: 'vigil', instance: 'node-a:9998' }],
  }),
  defineAlert({
    alert: 'VigilNoQuorum',
    target: 'kubernetes',
    expr: 'vigil_operator_quorum == 0',
    for: '1m',
    severity: 'critical',
    summary: 'The recorder cluster has no quorum',
    description: 'Half or more of the member recorder nodes are offline: the operator moves no camera until a majority is back, so the cameras of offline nodes are not recorded.',
    at: '5m',
    series: [
      { series: 'vigil_operator_quorum{instance="op-1:8080"}', firing: '1 1 0 0 0 0', healthy: '1x6' },
    ],
    fires: [{ instance: 'op-1:8080' }],
  }),
  defineAlert({
    alert: 'VigilNoOperatorLeader',
    target: 'kubernetes',
    // No replica holds the Lease, or no replica is scraped at all.
    expr: '(sum(vigil_operator_leader) == 0) or absent(vigil_operator_leader)',
    for: '2m',
    severity: 'critical',
    summary: 'No vigil-operator leads',
    description: 'No vigil-operator replica has held the leader Lease for 2 minutes: no camera is assigned or moved, and a failed node keeps its cameras.',
    at: '5m',
    series: [
      { series: 'vigil_operator_leader{instance="op-1:8080"}', firing: '1 0 0 0 0 0', healthy: '1 1 0 0 0 0' },
      { series: 'vigil_operator_leader{instance="op-2:8080"}', firing: '0x6', healthy: '0 0 1 1 1 1' },
    ],
    fires: [{}],
  }),
  defineAlert({
    alert: 'VigilRecordingsDiskUnderRetentionFloor',
    target: 'all',
    // Retention deletes down to the floor every minute: ten minutes under it and it cannot make room any more.
    expr: 'vigil_record_path_free_bytes < vigil_retention_min_free_bytes',
    for: '10m',
    severity: 'warning',
    summary: 'The recordings disk of {{ $labels.instance }} stays under the retention floor',
    description: 'The free space on record_path of {{ $labels.instance }} has been under min_free_percent for 10 minutes although retention deletes the oldest segments every minute: something else fills the disk, or nothing is left to delete. Recording stops when the disk is full.',
    at: '13m',
    series: [
      {
        series: 'vigil_record_path_free_bytes{instance="node-a:9998"}',
        firing: '6e9 5e9 4.9e9 4.8e9 4.7e9 4.6e9 4.5e9 4.4e9 4.3e9 4.2e9 4.1e9 4e9 3.9e9 3.8e9',
        // The steady state of a full archive: a little under the floor between retention passes, back above after each.
        healthy: '5.1e9 4.99e9 5.1e9 4.99e9 5.1e9 4.99e9 5.1e9 4.99e9 5.1e9 4.99e9 5.1e9 4.99e9 5.1e9 4.99e9',
      },
      { series: 'vigil_retention_min_free_bytes{instance="node-a:9998"}', firing: '5e9x14', healthy: '5e9x14' },
    ],
    fires: [{ instance: 'node-a:9998' }],
  }),
  defineAlert({
    alert: 'VigilSegmentWriteErrors',
    target: 'all',
    expr: 'increase(vigil_camera_segment_write_errors_total[5m]) > 0',
    for: '0m',
    severity: 'critical',
    summary: 'Segment writes of camera {{ $labels.camera }} fail',
    description: 'Writing or closing the segment files of camera {{ $labels.camera }} on {{ $labels.instance }} failed in the last 5 minutes: that video is lost.',
    at: '5m',
    series: [
      { series: 'vigil_camera_segment_write_errors_total{camera="gate", instance="node-a:9998"}', firing: '0 0 0 1 3 3', healthy: '0x6' },
    ],
    fires: [{ camera: 'gate', instance: 'node-a:9998' }],
  }),
  defineAlert({
    alert: 'VigilRecordingsIndexErrors',
    target: 'all',
    // Each failed delivery is retried with backoff (at most 30 s apart): failures all through 10 minutes is an outage.
    expr: 'increase(vigil_outbox_delivery_errors_total[5m]) > 0',
    for: '10m',
    severity: 'warning',
    summary: 'The recordings index of {{ $labels.instance }} is not written',
    description: '{{ $labels.instance }} has failed for 10 minutes to write its closed segments to the recordings table in the database; they wait in the outbox and are not listed by other nodes until it succeeds.',
    at: '15m',
    series: [
      // Healthy: one short database restart, a few failures, then none.
      { series: 'vigil_outbox_delivery_errors_total{instance="node-a:9998"}', firing: '0+3x16', healthy: '0 0 2 4 4 4 4 4 4 4 4 4 4 4 4 4' },
    ],
    fires: [{ instance: 'node-a:9998' }],
  }),
  defineAlert({
    alert: 'VigilCertificateExpiresSoon',
    target: 'all',
    // Renewal happens after two thirds of the lifetime (30 days before the end of a 90-day certificate); readiness fails at 7.
    expr: `vigil_tls_certificate_expiry_timestamp_seconds - time() < 14 * ${DAY}`,
    for: '1h',
    severity: 'warning',
    summary: 'The API certificate of {{ $labels.instance }} ends within 14 days',
    description: 'The certificate {{ $labels.instance }} serves ends within 14 days and has not been renewed; at 7 days the node reports not ready.',
    // Evaluated at 90 min; a certificate ending 10 days after the epoch starts (promtool's time() is 0 there).
    at: '90m',
    series: [
      { series: 'vigil_tls_certificate_expiry_timestamp_seconds{instance="node-a:9998"}', firing: `${10 * DAY}x100`, healthy: `${60 * DAY}x100` },
    ],
    fires: [{ instance: 'node-a:9998' }],
  }),
  defineAlert({
    alert: 'VigilJobQueueNotDraining',
    target: 'all',
    // Jobs wait and none has ended for 15 minutes (the duration histogram counts every job that ends, done or failed).
    expr: 'sum by (instance, kind) (vigil_jobs{state="pending"}) > 0 unless on (instance, kind) sum by (instance, kind) (increase(vigil_job_duration_seconds_count[15m])) > 0',
    for: '15m',
    severity: 'warning',
    summary: '{{ $labels.kind }} jobs of {{ $labels.instance }} do not drain',
    description: '{{ $labels.kind }} jobs have been waiting on {{ $labels.instance }} for 15 minutes and none has ended meanwhile.',
    at: '34m',
    // Healthy: a busy queue, jobs wait all the time and they end all the time.
    series: [
      {
        series: 'vigil_jobs{kind="export", state="pending", instance="node-a:9998"}',
        firing: '0 2 2 2 2 2 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3',
        healthy: '2x35',
      },
      { series: 'vigil_job_duration_seconds_count{kind="export", outcome="done", instance="node-a:9998"}', firing: '5x35', healthy: '0+1x35' },
    ],
    fires: [{ kind: 'export', instance: 'node-a:9998' }],
  }),
  defineAlert({
    alert: 'VigilOperatorQueueNotDraining',
    target: 'kubernetes',
    expr: 'min_over_time(vigil_operator_queue_depth[15m]) > 0',
    for: '5m',
    severity: 'warning',
    summary: 'The {{ $labels.controller }} work queue of the operator does not drain',
    description: 'The {{ $labels.controller }} controller of {{ $labels.instance }} has had keys waiting for 20 minutes without once emptying its queue: its reconciles fail or are too slow.',
    at: '25m',
    series: [
      {
        series: 'vigil_operator_queue_depth{controller="camera", instance="op-1:8080"}',
        firing: '0 0 4 5 6 7 8 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9',
        healthy: '0 3 0 2 0 1 0 4 0 2 0 1 0 3 0 2 0 1 0 4 0 2 0 1 0 3',
      },
    ],
    fires: [{ controller: 'camera', instance: 'op-1:8080' }],
  }),
];

export function alertsFor(target: 'kubernetes' | 'packages'): AlertDefinition[] {
  return ALERTS.filter((a) => a.target === 'all' || a.target === target);
}

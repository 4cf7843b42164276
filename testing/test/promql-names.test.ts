// The PromQL metric-name reader the alert and dashboard check relies on: selectors only, never functions, labels or numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promqlMetricNames } from '../src/promql-names.js';

test('names of selectors, not of functions, grouping labels, label values, keywords or numbers', () => {
  assert.deepEqual(promqlMetricNames('vigil_camera_seconds_since_last_fragment > 120'), ['vigil_camera_seconds_since_last_fragment']);
  assert.deepEqual(promqlMetricNames('sum by (instance, kind) (vigil_jobs{state="pending"}) > 0 unless on (instance, kind) sum by (instance, kind) (increase(vigil_job_duration_seconds_count[15m])) > 0'), ['vigil_job_duration_seconds_count', 'vigil_jobs']);
  assert.deepEqual(promqlMetricNames('(sum(vigil_operator_leader) == 0) or absent(vigil_operator_leader)'), ['vigil_operator_leader']);
  assert.deepEqual(promqlMetricNames('vigil_tls_certificate_expiry_timestamp_seconds - time() < 14 * 86400'), ['vigil_tls_certificate_expiry_timestamp_seconds']);
  assert.deepEqual(promqlMetricNames('histogram_quantile(0.95, sum by (le) (rate(a_bucket{instance=~"$instance", route=~"/api/(play|x)"}[$__rate_interval]))) / 1e3 + b'), ['a_bucket', 'b']);
  assert.deepEqual(promqlMetricNames('count(up{job="vigil"} <= 30) or vector(0)'), ['up']);
  assert.deepEqual(promqlMetricNames('1 - free_bytes / size_bytes offset 5m'), ['free_bytes', 'size_bytes']);
});

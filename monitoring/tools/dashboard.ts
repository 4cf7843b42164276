// The Grafana dashboard "Vigil", built with Grafana's foundation SDK: cameras recording, ingest, disk and retention,
// cluster moves, the API, live and playback, jobs. Recorder panels follow the $instance variable; operator panels
// show the leader's view.
import { LegendDisplayMode, LegendPlacement, ReduceDataOptionsBuilder, VizLegendOptionsBuilder } from '@grafana/grafana-foundation-sdk/common';
import { DashboardBuilder, DatasourceVariableBuilder, QueryVariableBuilder, RowBuilder, VariableRefresh, VariableSort, type Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatBuilder } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TimeseriesBuilder } from '@grafana/grafana-foundation-sdk/timeseries';
import * as units from '@grafana/grafana-foundation-sdk/units';

/** A unit id Grafana knows (the SDK's list). */
export type Unit = Extract<(typeof units)[keyof typeof units], string>;

export const DASHBOARD_UID = 'vigil-overview';

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
/** The recorders chosen in the $instance variable. */
const REC = 'instance=~"$instance"';

interface Query {
  expr: string;
  legend: string;
}

function target(q: Query, i: number): DataqueryBuilder {
  return new DataqueryBuilder().refId(String.fromCharCode(65 + i)).expr(q.expr).legendFormat(q.legend).datasource(DATASOURCE);
}

function timeseries(title: string, unit: Unit, description: string, queries: Query[], width = 12): TimeseriesBuilder {
  const panel = new TimeseriesBuilder().title(title).description(description).unit(unit).datasource(DATASOURCE).height(8).span(width).fillOpacity(10)
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom));
  queries.forEach((q, i) => panel.withTarget(target(q, i)));
  return panel;
}

function stat(title: string, unit: Unit, description: string, q: Query, width = 4): StatBuilder {
  return new StatBuilder().title(title).description(description).unit(unit).datasource(DATASOURCE).height(4).span(width)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
    .withTarget(target(q, 0));
}

const rate = (series: string, by: string): string => `sum by (${by}) (rate(${series}[$__rate_interval]))`;
const quantile = (q: number, bucket: string, by = 'le'): string => `histogram_quantile(${q}, sum by (${by}) (rate(${bucket}[$__rate_interval])))`;

/** Rows of panels, top to bottom. */
function rows(): Array<{ title: string; panels: Array<TimeseriesBuilder | StatBuilder> }> {
  return [
    {
      title: 'Cameras',
      panels: [
        stat('Cameras recording', units.NoUnit, 'Cameras that delivered video in the last 30 s', { expr: `count(vigil_camera_seconds_since_last_fragment{${REC}} <= 30) or vector(0)`, legend: 'recording' }),
        stat('Cameras silent', units.NoUnit, 'Cameras with no video for more than 30 s (VigilCameraNotRecording fires at 120 s)', { expr: `count(vigil_camera_seconds_since_last_fragment{${REC}} > 30) or vector(0)`, legend: 'silent' }),
        stat('Cameras not Recording (cluster)', units.NoUnit, 'Cameras whose status.phase is not Recording, from the operator leader', { expr: 'sum(vigil_operator_cameras{phase!="Recording"}) or vector(0)', legend: 'not recording' }),
        stat('Members online (cluster)', units.NoUnit, 'Member recorder nodes with a live heartbeat', { expr: 'sum(vigil_operator_members{state="online"})', legend: 'online' }),
        stat('Quorum (cluster)', units.NoUnit, '1 while more than half of the members are online', { expr: 'max(vigil_operator_quorum)', legend: 'quorum' }),
        stat('Operator leaders', units.NoUnit, 'Replicas holding the leader Lease: 1 is right', { expr: 'sum(vigil_operator_leader)', legend: 'leaders' }),
        timeseries('Cameras recording by node', units.NoUnit, 'Cameras of each recorder that delivered video in the last 30 s', [{ expr: `count by (instance) (vigil_camera_seconds_since_last_fragment{${REC}} <= 30)`, legend: '{{instance}}' }]),
        timeseries('Cameras by phase (cluster)', units.NoUnit, 'Camera status.phase counted by the operator leader', [{ expr: 'sum by (phase) (vigil_operator_cameras)', legend: '{{phase}}' }]),
      ],
    },
    {
      title: 'Ingest',
      panels: [
        timeseries('Ingest bitrate', units.BitsPerSecondSI, 'Media received from each camera', [{ expr: `8 * ${rate(`vigil_camera_ingest_bytes_total{${REC}}`, 'instance, camera')}`, legend: '{{camera}} ({{instance}})' }]),
        timeseries('Seconds since the last fragment', units.Seconds, 'A gap in a camera\'s video grows here; stall_seconds restarts its ingest', [{ expr: `max by (instance, camera) (vigil_camera_seconds_since_last_fragment{${REC}})`, legend: '{{camera}} ({{instance}})' }]),
        timeseries('Stalls and reconnects', units.NoUnit, 'Gaps: times a camera went silent, and ingest restarts', [
          { expr: `sum by (camera) (increase(vigil_camera_stalls_total{${REC}}[$__rate_interval]))`, legend: 'stall {{camera}}' },
          { expr: `sum by (camera) (increase(vigil_camera_reconnects_total{${REC}}[$__rate_interval]))`, legend: 'reconnect {{camera}}' },
        ]),
        timeseries('Fragments dropped', units.NoUnit, 'Fragments a too-slow subscriber skipped; recording above zero means the disk could not keep up', [
          { expr: `sum by (subscriber) (increase(vigil_camera_fragments_dropped_total{${REC}}[$__rate_interval]))`, legend: '{{subscriber}}' },
        ]),
      ],
    },
    {
      title: 'Disk and retention',
      panels: [
        timeseries('Recordings disk', units.BytesIEC, 'Free space on record_path and the floor retention keeps (min_free_percent)', [
          { expr: `vigil_record_path_free_bytes{${REC}}`, legend: 'free {{instance}}' },
          { expr: `vigil_retention_min_free_bytes{${REC}}`, legend: 'retention floor {{instance}}' },
        ]),
        timeseries('Recordings disk used', units.PercentUnit, 'Share of the record_path file system in use', [
          { expr: `1 - vigil_record_path_free_bytes{${REC}} / vigil_record_path_size_bytes{${REC}}`, legend: '{{instance}}' },
        ]),
        timeseries('Segments deleted by retention', units.NoUnit, 'max_age: past the age limit; min_free: to keep the free-space floor', [
          { expr: `sum by (reason) (increase(vigil_retention_deletions_total{${REC}}[$__rate_interval]))`, legend: '{{reason}}' },
        ]),
        timeseries('Write and index errors', units.NoUnit, 'Failed segment writes, failed deliveries to the recordings table, and rows waiting in the outbox', [
          { expr: `sum by (instance) (increase(vigil_camera_segment_write_errors_total{${REC}}[$__rate_interval]))`, legend: 'segment write errors {{instance}}' },
          { expr: `sum by (instance) (increase(vigil_outbox_delivery_errors_total{${REC}}[$__rate_interval]))`, legend: 'index delivery errors {{instance}}' },
          { expr: `vigil_outbox_depth{${REC}}`, legend: 'outbox depth {{instance}}' },
        ]),
      ],
    },
    {
      title: 'Cluster: failovers and moves',
      panels: [
        timeseries('Camera moves', units.NoUnit, 'Assignments and moves by kind (failover, planned, rebalance, …), from the operator leader', [
          { expr: 'sum by (kind) (increase(vigil_operator_camera_moves_total[$__rate_interval]))', legend: '{{kind}}' },
        ]),
        timeseries('Failover time', units.Seconds, 'From a silent node\'s last heartbeat to the reassignment of its cameras', [
          { expr: quantile(0.5, 'vigil_operator_failover_seconds_bucket'), legend: 'p50' },
          { expr: quantile(0.95, 'vigil_operator_failover_seconds_bucket'), legend: 'p95' },
        ]),
        timeseries('Members by state', units.NoUnit, 'Member recorder nodes online and offline', [{ expr: 'sum by (state) (vigil_operator_members)', legend: '{{state}}' }]),
        timeseries('Reconciles and errors', units.OpsPerSecond, 'Operator reconcile passes and failed ones, by controller', [
          { expr: rate('vigil_operator_reconciles_total', 'controller'), legend: '{{controller}}' },
          { expr: rate('vigil_operator_reconcile_errors_total', 'controller'), legend: 'errors {{controller}}' },
        ]),
      ],
    },
    {
      title: 'API',
      panels: [
        timeseries('API latency', units.Seconds, 'Request duration over every route', [
          { expr: quantile(0.5, `vigil_http_request_duration_seconds_bucket{${REC}}`), legend: 'p50' },
          { expr: quantile(0.95, `vigil_http_request_duration_seconds_bucket{${REC}}`), legend: 'p95' },
          { expr: quantile(0.99, `vigil_http_request_duration_seconds_bucket{${REC}}`), legend: 'p99' },
        ]),
        timeseries('API requests and errors', units.RequestsPerSecond, 'Requests by status class; 5xx are server errors', [
          { expr: `sum by (status_code) (rate(vigil_http_request_duration_seconds_count{${REC}, status_code=~"[45].."}[$__rate_interval]))`, legend: '{{status_code}}' },
          { expr: rate(`vigil_http_request_duration_seconds_count{${REC}}`, 'instance'), legend: 'all {{instance}}' },
        ]),
        timeseries('Slowest routes (p95)', units.Seconds, 'The 95th percentile of each route pattern', [
          { expr: `topk(5, ${quantile(0.95, `vigil_http_request_duration_seconds_bucket{${REC}}`, 'le, route')})`, legend: '{{route}}' },
        ]),
        timeseries('Snapshots', units.OpsPerSecond, 'Snapshot requests served from the cache and camera fetches', [
          { expr: `sum(rate(vigil_snapshot_cache_hits_total{${REC}}[$__rate_interval]))`, legend: 'cache hits' },
          { expr: `sum(rate(vigil_snapshot_cache_misses_total{${REC}}[$__rate_interval]))`, legend: 'camera fetches' },
        ]),
      ],
    },
    {
      title: 'Live and playback',
      panels: [
        timeseries('Live viewers', units.NoUnit, 'Open live WebSocket viewers by camera', [{ expr: `sum by (camera) (vigil_camera_live_viewers{${REC}})`, legend: '{{camera}}' }]),
        timeseries('Play streams', units.RequestsPerSecond, 'Archive playback requests: /play streams and segment downloads', [
          { expr: `sum by (route) (rate(vigil_http_request_duration_seconds_count{${REC}, route=~"/api/archive/:camera_id/(play|segments/:filename)"}[$__rate_interval]))`, legend: '{{route}}' },
        ]),
      ],
    },
    {
      title: 'Jobs',
      panels: [
        timeseries('Archive jobs', units.NoUnit, 'Export, timelapse and assemble jobs waiting and running', [
          { expr: `sum by (kind, state) (vigil_jobs{${REC}, state=~"pending|running"})`, legend: '{{kind}} {{state}}' },
        ]),
        timeseries('Jobs ended', units.NoUnit, 'Jobs that ended, by outcome', [
          { expr: `sum by (kind, outcome) (increase(vigil_job_duration_seconds_count{${REC}}[$__rate_interval]))`, legend: '{{kind}} {{outcome}}' },
        ]),
        timeseries('Job duration (p95)', units.Seconds, 'From submit to the end of the job', [
          { expr: quantile(0.95, `vigil_job_duration_seconds_bucket{${REC}}`, 'le, kind'), legend: '{{kind}}' },
        ]),
        timeseries('Operator work queues', units.NoUnit, 'Keys waiting in each controller\'s queue', [{ expr: 'sum by (controller) (vigil_operator_queue_depth)', legend: '{{controller}}' }]),
      ],
    },
  ];
}

export function buildDashboard(): Dashboard {
  const builder = new DashboardBuilder('Vigil')
    .uid(DASHBOARD_UID)
    .description('Vigil camera recording: cameras, ingest, disk and retention, cluster moves, API, live and playback, jobs')
    .tags(['vigil'])
    .refresh('30s')
    .time({ from: 'now-6h', to: 'now' })
    .timezone('browser')
    .withVariable(new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'))
    .withVariable(new QueryVariableBuilder('instance')
      .label('Recorder')
      .datasource(DATASOURCE)
      .query('label_values(vigil_record_path_free_bytes, instance)')
      .definition('label_values(vigil_record_path_free_bytes, instance)')
      .refresh(VariableRefresh.OnTimeRangeChanged)
      .sort(VariableSort.AlphabeticalAsc)
      .multi(true)
      .includeAll(true)
      .allValue('.*'));
  // Every row and panel gets its own id, in reading order (Grafana keys panel links and state on them).
  let id = 0;
  for (const row of rows()) {
    builder.withRow(new RowBuilder(row.title).id(++id));
    for (const panel of row.panels) builder.withPanel(panel.id(++id));
  }
  return builder.build();
}

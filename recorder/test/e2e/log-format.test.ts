// vigil-recorder's log as a person and as a collector see it: one readable line per event (time, level, camera,
// message) on a terminal or with --log-format pretty; JSON lines through a pipe or with --log-format json.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { stringify } from 'yaml';
import { runCommand } from '@vigil/testing/command';
import { runUntil, stripAnsi } from '@vigil/testing/log-output';
import { tempDir } from '@vigil/testing/temp-dir';
import { RECORDER_BIN } from '../support/recorder-process.js';

const PASSWORD = 'Log-Secret-5521';
/** A readable line: local time with milliseconds, the level, then the message. */
const PRETTY_LINE = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] (INFO|WARN|ERROR|DEBUG): \S/;

/** A recorder with one camera that refuses connections (it logs camera lines at once), on free ports. */
async function recorderArgs(t: TestContext, extra: string[]): Promise<string[]> {
  const dir = await tempDir(t, 'vigil-log-format-');
  const config = join(dir, 'config.yaml');
  writeFileSync(config, stringify({
    listen: '127.0.0.1:0',
    metrics: { listen: '127.0.0.1:0' },
    record_path: join(dir, 'recordings'),
    work_dir: join(dir, 'work'),
    auth: { disabled: true },
    cameras: [{ id: 'gate', source: `rtsp://viewer:${PASSWORD}@127.0.0.1:1/stream` }],
  }));
  mkdirSync(join(dir, 'recordings'));
  return [process.execPath, RECORDER_BIN, '--config', config, ...extra];
}

const UNTIL = /Prometheus metrics on/;
const lines = (text: string): string[] => stripAnsi(text).split(/\r?\n/).filter((l) => l.trim() !== '');

function assertPretty(output: string): void {
  const all = lines(output);
  assert.ok(all.length >= 5, output);
  for (const line of all) assert.match(line, PRETTY_LINE, `one readable line per event: ${line}`);
  // The camera leads its lines, the error follows the message, the other fields stay on the same line.
  assert.ok(all.some((l) => /\] INFO: gate: camera started \{.*"segment_seconds":\d+/.test(l)), output);
  assert.ok(all.some((l) => /\] WARN: gate: ingest ended; restarting: .*ECONNREFUSED/.test(l)), output);
  assert.ok(all.some((l) => /\] INFO: listening on http:\/\/127\.0\.0\.1:\d+/.test(l)), output);
  assert.ok(!output.includes(PASSWORD), 'the camera password never reaches the log');
}

test('--log-format pretty through a pipe: readable lines, no colours', async (t) => {
  const output = await runUntil(t, await recorderArgs(t, ['--log-format', 'pretty']), { until: UNTIL, terminal: false });
  assertPretty(output);
  assert.equal(stripAnsi(output), output, 'no colour codes when stdout is not a terminal');
});

test('stdout a terminal (script): readable lines in colour without any flag', async (t) => {
  const env = { ...process.env };
  delete env['NO_COLOR'];
  const output = await runUntil(t, await recorderArgs(t, []), { until: UNTIL, terminal: true, env });
  assertPretty(output);
  assert.notEqual(stripAnsi(output), output, 'the level is coloured on a terminal');
});

test('stdout a pipe without a flag, or --log-format json on a terminal: JSON lines', async (t) => {
  for (const [extra, terminal] of [[[], false], [['--log-format', 'json'], true]] as const) {
    const output = await runUntil(t, await recorderArgs(t, [...extra]), { until: UNTIL, terminal });
    const records = lines(output).map((l) => JSON.parse(l) as { level: number; time: string; msg: string; camera?: string });
    assert.ok(records.length >= 5);
    for (const r of records) {
      assert.equal(typeof r.level, 'number');
      assert.ok(!Number.isNaN(Date.parse(r.time)), `ISO time: ${r.time}`);
    }
    assert.ok(records.some((r) => r.camera === 'gate' && r.msg === 'camera started'), output);
    assert.ok(!output.includes(PASSWORD));
  }
});

test('--log-format with another value is refused with the usage (exit 2)', async (t) => {
  const result = await runCommand(process.execPath, (await recorderArgs(t, ['--log-format', 'xml'])).slice(1));
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--log-format must be json or pretty \(got "xml"\)/);
});

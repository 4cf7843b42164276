// The layer rule bites: lower layers cannot import upper ones, only http/ touches fastify, workspaces keep apart.
import { test } from 'node:test';
import { assertAllowed, assertRefused } from './lint-cases.js';

test('imports that break the layering are errors, with a message that says what to do', async () => {
  const refused: Array<[string, string, RegExp]> = [
    ['recorder/src/media/x.ts', "import { buildApp } from '../http/app.js';\nexport const a = buildApp;\n", /media\/ may not import recorder\/src\/http\//],
    ['recorder/src/fleet/x.ts', "import Fastify from 'fastify';\nexport const a = Fastify;\n", /only recorder\/src\/http\/ may import fastify/],
    ['recorder/src/recording/x.ts', "import { WebSocket } from 'ws';\nexport const a = WebSocket;\n", /may import ws/],
    ['recorder/src/archive/x.ts', "import { startRecorder } from '../recorder.js';\nexport const a = startRecorder;\n", /composition root/],
    ['recorder/src/fleet/x.ts', "import pg from 'pg';\nexport const a = pg;\n", /may import pg/],
    ['recorder/src/cameras/x.ts', "import { a } from '@vigil/operator/x';\nexport const b = a;\n", /never imports @vigil\/operator/],
    ['recorder/src/stream/x.ts', "import { a } from '../../../operator/src/x.js';\nexport const b = a;\n", /never imports operator\//],
    ['recorder/src/log/x.ts', "import { resources } from '@vigil/kube';\nexport const a = resources;\n", /only recorder\/src\/cluster\/ may import @vigil\/kube$/],
    ['recorder/src/fleet/x.ts', "import { LOG_FORMATS } from '@vigil/kube/log-format';\nexport const a = LOG_FORMATS;\n", /only recorder\/src\/log\/ may import @vigil\/kube\/log-format/],
    ['recorder/src/brand-new/x.ts', "import { a } from '../util/x.js';\nexport const b = a;\n", /not in the layer table/],
  ];
  await assertRefused('vigil/layers', refused);
});

test('imports that follow the layering pass', async () => {
  const allowed: Array<[string, string]> = [
    ['recorder/src/http/routes/x.ts', "import { ApiError } from '../error-catalogue.js';\nimport { listSegments } from '../../archive/segment-listing.js';\nexport const a = [ApiError, listSegments];\n"],
    ['recorder/src/fleet/x.ts', "import { StreamHub } from '../stream/stream-hub.js';\nexport const a = StreamHub;\n"],
    ['recorder/src/db/x.ts', "import pg from 'pg';\nexport const a = pg;\n"],
    ['recorder/src/log/x.ts', "import { prettyStdout } from '@vigil/kube/log-format';\nexport const a = prettyStdout;\n"],
    ['recorder/src/main.ts', "import { buildApp } from './http/app.js';\nimport Fastify from 'fastify';\nexport const a = [buildApp, Fastify];\n"],
    ['recorder/test/http/x.test.ts', "import Fastify from 'fastify';\nimport { a } from '@vigil/testing/net';\nexport const b = [Fastify, a];\n"],
  ];
  await assertAllowed('vigil/layers', allowed);
});

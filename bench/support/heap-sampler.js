/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload, loaded with `node -r` */
/* global require, process, setTimeout */
/**
 * Preload (`node -r bench/support/heap-sampler.js …`): V8's sampling heap profiler, counting objects a GC has
 * already collected too, so the profile is what the process allocated in the window, not what was still live at its
 * end. HEAP_SAMPLE_OUT: the .heapprofile to write; HEAP_SAMPLE_AFTER_S (default 10): start after this many seconds
 * (start-up and warm-up left out); HEAP_SAMPLE_FOR_S (default 10): the window. Summarise with
 * bench/heap-summary.ts. Writes nothing when HEAP_SAMPLE_OUT is unset.
 */
'use strict';
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');

const out = process.env.HEAP_SAMPLE_OUT;
if (out) {
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  const after = Number(process.env.HEAP_SAMPLE_AFTER_S ?? 10) * 1000;
  const span = Number(process.env.HEAP_SAMPLE_FOR_S ?? 10) * 1000;
  setTimeout(() => {
    void post('HeapProfiler.startSampling', {
      samplingInterval: 16384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    }).then(() =>
      setTimeout(() => {
        void post('HeapProfiler.stopSampling').then(({ profile }) => {
          writeFileSync(out, JSON.stringify({ windowMs: span, profile }));
          process.stderr.write(`heap sample written to ${out}\n`);
        });
      }, span).unref(),
    );
  }, after).unref();
}

// Test support: headless Debian Chromium through playwright-core, and an in-page reader of the stamp camera's block code.
import type { TestContext } from 'node:test';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env['VIGIL_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

export interface LaunchOptions {
  /** The browser's HOME: where Chromium on Linux finds the user's certificate store (see chromium-trust.ts). */
  home?: string;
}

/** Playwright gives every launch a fresh, empty profile directory of its own (it refuses --user-data-dir here). */
export async function launchChromium(t: TestContext, opts: LaunchOptions = {}): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...(opts.home === undefined ? {} : { env: { ...process.env, HOME: opts.home } }),
  });
  t.after(() => browser.close());
  return browser;
}

/**
 * Runs in the page (passed to page.evaluate, so it must be self-contained): on every presented frame of the
 * camera's <video>, decodes the stamp camera's block code (see testing/fixtures/stamp_camera.py) and records
 * now − stamp in window.__stampLatencies[cameraId].
 */
export function installStampReader(cameraId: string): void {
  const video = document.querySelector<HTMLVideoElement>(`video[data-camera="${cameraId}"]`);
  if (video === null) throw new Error(`no video for ${cameraId}`);
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (ctx === null) throw new Error('no 2d canvas');
  const holder = window as unknown as { __stampLatencies?: Record<string, number[]> };
  holder.__stampLatencies ??= {};
  const out: number[] = [];
  holder.__stampLatencies[cameraId] = out;
  const onFrame = (): void => {
    const block = Math.floor(video.videoWidth / 26);
    if (block > 0) {
      canvas.width = 24 * block;
      canvas.height = 2 * block;
      ctx.drawImage(video, 0, 0, canvas.width, canvas.height, 0, 0, canvas.width, canvas.height);
      const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let stamp = 0;
      for (let i = 0; i < 48; i++) {
        const x = (i % 24) * block + (block >> 1);
        const y = Math.floor(i / 24) * block + (block >> 1);
        stamp = stamp * 2 + ((px[(y * canvas.width + x) * 4] ?? 0) > 128 ? 1 : 0);
      }
      const now = Date.now();
      if (Math.abs(now - stamp) < 60_000) out.push(now - stamp);
    }
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

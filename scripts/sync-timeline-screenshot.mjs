// Screenshots a tilesim sync timeline (Chrome trace-event JSON) in the Performance panel of
// Chromium's own DevTools, in headless Chromium. Run through sync-timeline-screenshot.sh.
// Usage: node sync-timeline-screenshot.mjs TIMELINE.json OUT.png   (env: TILESIM_SHOT_DIR)
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const [jsonPath, outPng] = process.argv.slice(2);
const shotDir = process.env.TILESIM_SHOT_DIR || '/work/scratch/shot';
const { chromium } = createRequire(path.join(shotDir, 'package.json'))('playwright-core');

// Two view-only adjustments for DevTools, nothing added or dropped:
// - DevTools leaves events at ts 0 out of the trace bounds, so every ts is shifted by 1 us
//   (the ruler is relative to the first event, so it reads the same);
// - DevTools draws instants only for the legacy phase "I", so "i" becomes "I".
// Flow arrows ("s"/"f") appear only if a slice of the same cat sits at the flow event's ts on its
// pipe (catapult and Perfetto want an enclosing slice): a flow with none is not drawn.
const trace = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
const events = Array.isArray(trace) ? trace : trace.traceEvents;
for (const e of events) {
  if (typeof e.ts === 'number') e.ts += 1;
  if (e.ph === 'i') e.ph = 'I';
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sync-timeline-'));
const viewJson = path.join(tmp, path.basename(jsonPath));
fs.writeFileSync(viewJson, JSON.stringify(trace));
// Pipes with at least one slice or instant get a track; they are expanded below.
const tracks = new Set(events.filter(e => e.ph === 'X' || e.ph === 'I').map(e => `${e.pid}/${e.tid}`)).size;

const port = await new Promise(resolve => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', `--remote-debugging-port=${port}`],
});
try {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 700 } });
  await ctx.newPage(); // a target for DevTools to attach to
  const target = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()).find(t => t.type === 'page');
  const page = await ctx.newPage();
  // The DevTools front end bundled in Chromium, served by its remote-debugging endpoint.
  await page.goto(`http://127.0.0.1:${port}/devtools/devtools_app.html` +
                  `?ws=127.0.0.1:${port}/devtools/page/${target.id}&panel=timeline`);
  const load = page.locator('devtools-button[title^="Load trace"]').first();
  await load.waitFor();
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), load.click()]);
  await chooser.setFiles(viewJson);
  await page.getByText('Summary', { exact: true }).first().waitFor(); // trace loaded
  const close = page.getByRole('dialog').getByRole('button', { name: 'Close' }); // shortcuts tip
  if (await close.first().waitFor({ timeout: 3000 }).then(() => true, () => false)) await close.first().click();
  await page.locator('devtools-button[title="Hide sidebar"]').first().click(); // Insights/Annotations
  await page.waitForTimeout(500);
  // Make the track area shorter so the details pane has room.
  await page.mouse.move(700, 501);
  await page.mouse.down();
  await page.mouse.move(700, 330, { steps: 5 });
  await page.mouse.up();
  await page.waitForTimeout(300);
  await page.mouse.click(10, 129);  // expand the process group ("core")
  await page.waitForTimeout(300);
  for (let i = tracks - 1; i >= 0; i--) { // expand each pipe track, bottom one first
    await page.mouse.click(20, 147 + 21 * i);
    await page.waitForTimeout(200);
  }
  // Find the hazards with the panel's search (Ctrl+F): the first is selected and its details fill
  // the Summary pane; the search stays open, so the other slices are drawn dimmed.
  await page.mouse.click(700, 320);
  await page.keyboard.press('Control+F');
  await page.keyboard.type('HAZARD');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(1000);
  await page.screenshot({ path: outPng });
} finally {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

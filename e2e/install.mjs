// Browser journey: Ounce installs as an app on a phone-sized Chromium. The manifest parses with
// its icons, the service worker registers at "/", the phone menu opens (with and without
// JavaScript) and lists alerts and /legal, and with the network gone the dashboard comes back
// read-only, marked offline with its time, while any other page shows the offline page.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { launchChromium, step } from "./journey.mjs";

const base = process.env.BASE_URL;
const shots = process.env.SHOTS || "e2e/screenshots";
mkdirSync(shots, { recursive: true });
const browser = await launchChromium();
const phone = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

try {
  const ctx = await browser.newContext(phone);
  await ctx.route((url) => !url.href.startsWith(base), (route) => route.abort());
  const page = await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });

  await step("sign up lands on the dashboard", async () => {
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(`installer${Date.now()}@example.com`);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
    assert.equal(await page.locator("body").getAttribute("data-nav"), "home");
  });

  await step("the manifest parses, with 192 and 512 px icons and a maskable one", async () => {
    const cdp = await ctx.newCDPSession(page);
    const got = await cdp.send("Page.getAppManifest");
    assert.equal(got.url, base + "/manifest.webmanifest");
    assert.deepEqual(got.errors, [], "manifest errors");
    const m = JSON.parse(got.data);
    assert.equal(m.name, "Ounce");
    assert.equal(m.display, "standalone");
    assert.equal(m.start_url, "/");
    const sizes = m.icons.map((i) => i.sizes + " " + (i.purpose || "any"));
    for (const want of ["192x192 any", "512x512 any", "512x512 maskable"]) assert.ok(sizes.includes(want), "icons: " + sizes);
    for (const icon of m.icons) {
      const res = await page.request.get(base + icon.src);
      assert.equal(res.status(), 200, icon.src);
      assert.equal(res.headers()["content-type"], "image/png", icon.src);
    }
    const res = await page.request.get(base + "/manifest.webmanifest");
    assert.match(res.headers()["content-type"], /^application\/manifest\+json/);
    assert.equal(await page.locator('meta[name="theme-color"]').getAttribute("content"), m.theme_color);
    assert.equal(await page.locator('link[rel="apple-touch-icon"]').count(), 1);
  });

  await step("the service worker registers at / and the page is installable", async () => {
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    assert.equal(scope, base + "/");
    const sw = await page.request.get(base + "/sw.js");
    assert.match(sw.headers()["content-type"], /^text\/javascript/);
    const cdp = await ctx.newCDPSession(page);
    const inst = await cdp.send("Page.getInstallabilityErrors").catch((e) => ({ unsupported: String(e) }));
    // A Playwright context is an incognito profile, which Chromium never offers to install
    // from; every other reason would be the site's.
    if (!inst.unsupported) {
      assert.deepEqual(inst.installabilityErrors.filter((e) => e.errorId !== "in-incognito"), [], "installability errors");
    }
    console.log("     installability: " + JSON.stringify(inst));
  });

  await step("the phone menu lists every destination, alerts and /legal included", async () => {
    await page.reload(); // now controlled by the worker, which keeps this dashboard
    assert.equal(await page.locator('nav[aria-label="Main"] > ul').isVisible(), false, "the link strip is hidden at 375 px");
    await page.getByText("Menu", { exact: true }).click();
    const menu = page.locator("#phone-menu nav");
    for (const name of ["Dashboard", "Markets", "Holdings", "Settings", "Alerts", "Legal and privacy"]) {
      const link = menu.getByRole("link", { name, exact: true });
      assert.ok(await link.isVisible(), name + " in the menu");
      const box = await link.boundingBox();
      assert.ok(box.height >= 44, `${name} is ${box.height} px tall`);
    }
    assert.ok(await menu.getByRole("button", { name: /^Sign out/ }).isVisible());
    await page.screenshot({ path: `${shots}/install-menu-375.png` });
    assert.equal(await page.locator('footer a[href="/legal"]').count(), 1, "/legal linked from the footer");
  });

  await step("the menu opens without JavaScript", async () => {
    const nojs = await browser.newContext({ ...phone, javaScriptEnabled: false, storageState: await ctx.storageState(), serviceWorkers: "block" });
    const p = await nojs.newPage();
    await p.goto(base + "/markets");
    await p.getByText("Menu", { exact: true }).click();
    assert.ok(await p.locator("#phone-menu nav").getByRole("link", { name: "Alerts" }).isVisible());
    await nojs.close();
  });

  await step("offline, the dashboard comes back read-only and dated", async () => {
    await page.waitForFunction(async () => !!(await (await caches.open("ounce-dashboard-v1")).match("/")), null, { timeout: 10000 });
    await ctx.setOffline(true);
    await page.reload();
    const banner = page.locator("#offline-banner");
    await banner.waitFor();
    assert.match(await banner.innerText(), /^Offline — showing your dashboard as of \d{1,2} \w{3} \d{4}/);
    assert.equal(await page.locator("main").getAttribute("inert"), "");
    assert.equal(await page.locator("script").count(), 0, "no scripts in the kept copy");
    await page.screenshot({ path: `${shots}/install-offline-dashboard-375.png`, fullPage: true });
  });

  await step("offline, any other page shows the offline page", async () => {
    await page.goto(base + "/markets");
    await page.getByRole("heading", { name: "You are offline" }).waitFor();
    assert.ok(await page.locator('link[href="/static/css/app.css"]').count() === 1);
    await page.screenshot({ path: `${shots}/install-offline-375.png`, fullPage: true });
    await ctx.setOffline(false);
  });

  await step("signing out forgets the kept dashboard", async () => {
    await page.goto(base + "/");
    await page.getByText("Menu", { exact: true }).click();
    await page.locator("#phone-menu").getByRole("button", { name: /^Sign out/ }).click();
    await page.waitForLoadState("load");
    const kept = await page.evaluate(async () => !!(await (await caches.open("ounce-dashboard-v1")).match("/")));
    assert.equal(kept, false);
  });

  await step("no console errors", async () => {
    assert.deepEqual(errors.filter((e) => !e.includes("ERR_INTERNET_DISCONNECTED")), []);
  });
} finally {
  await browser.close();
}

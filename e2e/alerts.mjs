// Price alerts in Chromium, driven by playwright-core: a member sets an alert from the silver
// card (its price prefilled), grants the notification permission and enables browser
// notifications; the service worker registers at /sw.js with scope / and the subscription is
// stored (the Go test checks the database). BASE_URL is the server the Go test started.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const base = process.env.BASE_URL;
const shots = process.env.SHOTS || "e2e/screenshots";
const email = process.env.EMAIL;
// The subscription the browser hands over. Chromium's own push service is Google's, which a
// test cannot reach (nothing here touches the internet), so pushManager is given a
// subscription at the Go test's loopback push service instead; the service worker, the
// permission, the page's code and the server are all real.
const subscription = JSON.parse(process.env.SUBSCRIPTION);
mkdirSync(shots, { recursive: true });

// A persistent profile: Chromium refuses push subscriptions in incognito contexts, which is
// what browser.newContext() makes.
const profile = mkdtempSync(join(tmpdir(), "ounce-alerts-"));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  viewport: { width: 1280, height: 900 },
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-component-update", "--disable-sync"],
});
const browser = ctx.browser();
const step = async (name, fn) => {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    console.log("FAIL " + name + "\n" + (e.stack || e));
    throw e;
  }
};
const consoleErrors = [];
try {
  await ctx.addInitScript((sub) => {
    if (!window.PushManager) return;
    let current = null;
    const fake = { endpoint: sub.endpoint, expirationTime: null, toJSON: () => sub, getKey: () => null, unsubscribe: async () => true };
    PushManager.prototype.getSubscription = async function () { return current; };
    PushManager.prototype.subscribe = async function (opts) {
      if (!opts || !opts.userVisibleOnly || !opts.applicationServerKey || opts.applicationServerKey.length !== 65) {
        throw new Error("subscribe called without userVisibleOnly and a 65-byte applicationServerKey");
      }
      if (Notification.permission !== "granted") throw new Error("permission not granted");
      current = fake;
      return fake;
    };
  }, subscription);
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(e.message));

  await step("sign up", async () => {
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
  });

  await step("the bell is in the navigation", async () => {
    await page.locator("#notification-bell").waitFor();
    await page.waitForFunction(() => document.getElementById("notification-bell").getAttribute("data-unread") === "0");
  });

  await step("create an alert from the silver card, price prefilled", async () => {
    await page.goto(base + "/alerts");
    const card = page.locator('form[data-alert-card="silver"]');
    const prefilled = await card.locator('input[name="target_price"]').inputValue();
    assert.match(prefilled, /^\d+\.\d{2,4}$/, "target prefilled with the current price, at its source's precision");
    await card.locator('select[name="direction"]').selectOption("above");
    await card.locator('input[name="target_price"]').fill("40");
    await card.getByRole("button", { name: "Create alert" }).click();
    await page.waitForURL(/\/alerts\?done=created/);
    await page.locator("#alert-list li", { hasText: "$40.00" }).waitFor();
  });

  await step("grant notifications and enable them in this browser", async () => {
    await ctx.grantPermissions(["notifications"], { origin: base });
    await page.getByRole("button", { name: "Enable browser notifications" }).click();
    await page.waitForFunction(() => /on for this browser|Could not/.test(document.getElementById("push-status").textContent), null, { timeout: 30000 });
    const status = await page.locator("#push-status").textContent();
    assert.match(status, /on for this browser/, "status: " + status);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration("/")).scope);
    assert.equal(scope, base + "/");
    const sub = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.getRegistration("/");
      const s = await reg.pushManager.getSubscription();
      return s && s.toJSON();
    });
    assert.equal(sub && sub.endpoint, subscription.endpoint);
  });

  await step("the service worker shows a pushed alert", async () => {
    const sw = ctx.serviceWorkers().find((w) => w.url() === base + "/sw.js") || (await ctx.waitForEvent("serviceworker"));
    const titles = await sw.evaluate(async () => {
      const payload = JSON.stringify({ title: "Silver above $40.00", body: "Silver is at $40.25 an ounce, above your target of $40.00.", url: "/alerts" });
      try {
        self.dispatchEvent(new PushEvent("push", { data: payload }));
      } catch (e) {
        // A script-made event cannot be extended (waitUntil); the notification is shown anyway.
      }
      await new Promise((r) => setTimeout(r, 500));
      return (await self.registration.getNotifications()).map((n) => n.title);
    });
    assert.ok(titles.includes("Silver above $40.00"), "notifications: " + JSON.stringify(titles));
  });

  await step("screenshots", async () => {
    await page.goto(base + "/alerts");
    await page.screenshot({ path: shots + "/alerts-1280.png", fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: shots + "/alerts-375.png", fullPage: true });
  });
  assert.deepEqual(consoleErrors, [], "console errors");
} finally {
  await ctx.close();
  rmSync(profile, { recursive: true, force: true });
}

// Browser journey of the junk-silver calculator, driven by playwright-core against Debian's
// Chromium. BASE_URL points at an offline server the Go test started on loopback. The result
// panel recomputes as the member types; input the server refuses must clear the old figure
// and name the field, as the page rendered without JavaScript does. On a phone the what-if
// presets are tap targets of at least 44 px.
import assert from "node:assert/strict";
import { launchChromium, step } from "./journey.mjs";

const base = process.env.BASE_URL;

const browser = await launchChromium();

try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.route((url) => !url.href.startsWith(base), (route) => route.abort());
  const page = await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const dimes = page.getByLabel("Dimes (90%)");
  const melt = page.locator("#junk-result [data-melt]");
  const alert = page.locator("#junk-result [role=alert]");

  await step("typing a count shows its melt value", async () => {
    await page.goto(base + "/calculators/junk-silver");
    assert.equal(await melt.innerText(), "$0.00", "an empty form melts to nothing");
    await dimes.fill("10");
    await page.waitForFunction(() => { const m = document.querySelector("#junk-result [data-melt]"); return m && m.textContent !== "$0.00"; });
    assert.match(await melt.innerText(), /^\$\d+\.\d\d$/);
  });

  for (const bad of ["10.5", "-5", "ten"]) {
    await step(`"${bad}" clears the result and names the dimes field`, async () => {
      await dimes.fill(bad);
      await alert.waitFor({ timeout: 5000 });
      assert.equal(await melt.count(), 0, "no melt value beside input it does not belong to");
      assert.match(await alert.innerText(), /dimes/i);
    });
  }

  await step("two wrong fields are both named", async () => {
    await page.getByLabel("Quarters (90%)").fill("-1");
    await page.waitForFunction(() => document.querySelectorAll("#junk-result [role=alert] li").length === 2);
    const text = await alert.innerText();
    assert.match(text, /dimes/i);
    assert.match(text, /quarters/i);
  });

  await step("a valid count brings the result back", async () => {
    await page.getByLabel("Quarters (90%)").fill("4");
    await dimes.fill("20");
    await melt.waitFor({ timeout: 5000 });
    assert.equal(await alert.count(), 0);
    assert.notEqual(await melt.innerText(), "$0.00");
    assert.deepEqual(errors, [], "console errors");
  });

  await step("on a phone, every what-if preset is a 44 px tap target and applies its targets", async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });
    await phone.route((url) => !url.href.startsWith(base), (route) => route.abort());
    const p = await phone.newPage();
    await p.goto(base + "/calculators/what-if");
    const presets = p.locator("[data-scenarios] a");
    const n = await presets.count();
    assert.ok(n >= 3, `${n} presets`);
    for (let i = 0; i < n; i++) {
      const box = await presets.nth(i).boundingBox();
      const name = await presets.nth(i).innerText();
      assert.ok(box.height >= 44 && box.width >= 44, `"${name}" is ${box.width}×${box.height} px`);
    }
    await presets.first().tap();
    await p.waitForURL(/\/calculators\/what-if\?.+/);
    assert.ok(await p.locator("#whatif-result").isVisible());
    await phone.close();
  });
} finally {
  await browser.close();
}

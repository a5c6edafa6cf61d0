// Receipt-scanning journey, driven by playwright-core against Debian's Chromium: a rendered
// receipt image (chosen with the file input) and a text PDF (dropped on the drop zone) each
// become the right proposed lines, and "Add to holdings" adds exactly those lots.
// BASE_URL is the server the Go test started; FIXTURES holds the rendered samples; SHOTS, when
// set, receives screenshots at 375 and 1280 px in light and dark.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";

const base = process.env.BASE_URL;
const fixtures = process.env.FIXTURES;
const shots = process.env.SHOTS || "";
if (shots) mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const step = async (name, fn) => {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    console.log("FAIL " + name + "\n" + (e.stack || e));
    throw e;
  }
};

// rows reads the proposal table back as the member sees it.
const rows = (page) => page.$$eval("#scan-lines tbody tr[data-row]", (trs) => trs.map((tr) => {
  const v = (sel) => tr.querySelector(sel)?.value ?? "";
  return [v("input[name^=product_name_]"), v("select[name^=metal_]"), v("input[name^=quantity_]"),
    v("input[name^=weight_oz_]"), v("input[name^=unit_price_]"), tr.querySelector(".num")?.textContent.trim()].join("|");
}));

const shoot = async (page, name) => {
  if (!shots) return;
  for (const [w, scheme] of [[1280, "light"], [1280, "dark"], [375, "light"], [375, "dark"]]) {
    await page.setViewportSize({ width: w, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} at ${w}px scrolls sideways by ${overflow}px`);
    await page.screenshot({ path: `${shots}/${name}-${w}-${scheme}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
};

try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const email = `scanner${Date.now()}@example.com`;

  await step("sign up", async () => {
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
  });

  await step("the scan page takes a photo from the camera", async () => {
    await page.getByRole("link", { name: "Scan a receipt" }).first().click();
    await page.waitForURL(base + "/portfolio/scan");
    const input = page.locator("#scan-file");
    assert.equal(await input.getAttribute("capture"), "environment");
    assert.match(await input.getAttribute("accept"), /^image\/\*/);
    await shoot(page, "scan-empty");
  });

  await step("a rendered receipt image becomes the right proposed lines", async () => {
    await page.locator("#scan-file").setInputFiles(`${fixtures}/apmex-150.png`);
    await page.getByRole("button", { name: "Scan receipt" }).click();
    await page.locator("#scan-lines").waitFor({ timeout: 60000 });
    assert.equal(await page.locator("#scan-dealer").inputValue(), "APMEX");
    assert.equal(await page.locator("#scan-order").inputValue(), "71230045");
    assert.equal(await page.locator("#scan-date").inputValue(), "2026-03-14");
    assert.deepEqual(await rows(page), [
      "2026 1 oz American Silver Eagle BU|silver|20|1|34.10|$682.00",
      "1/10 oz Gold Maple Leaf (Random Year)|gold|5|0.1|312.40|$1,562.00",
      "10 oz Silver Bar - APMEX .999 Fine|silver|2|10|338.50|$677.00",
    ]);
    assert.equal(await page.locator("#scan-warnings").count(), 0, "a receipt that adds up has no warnings");
    await shoot(page, "scan-image");
  });

  await step("Add to holdings adds exactly those lots", async () => {
    await page.getByRole("button", { name: "Add to holdings" }).click();
    await page.getByText("Added 3 holdings").waitFor();
    await page.goto(base + "/holdings");
    const text = await page.locator("main").innerText();
    for (const name of ["2026 1 oz American Silver Eagle BU", "1/10 oz Gold Maple Leaf (Random Year)", "10 oz Silver Bar - APMEX .999 Fine"]) {
      assert.ok(text.includes(name), `holdings list ${name}`);
    }
  });

  await step("a text PDF dropped on the page becomes the right lines, its mismatch highlighted", async () => {
    await page.goto(base + "/portfolio/scan");
    const pdf = readFileSync(`${fixtures}/moneymetals.pdf`).toString("base64");
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "invoice.pdf", { type: "application/pdf" }));
      document.getElementById("scan-drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, pdf);
    await page.locator("#scan-lines").waitFor({ timeout: 60000 });
    assert.equal(await page.locator("#scan-dealer").inputValue(), "Money Metals Exchange");
    assert.equal(await page.locator("#scan-date").inputValue(), "2026-01-28");
    assert.deepEqual(await rows(page), [
      "1/10 oz Gold American Eagle|gold|10|0.1|462.00|$4,620.00",
      "10 oz Silver Bar (Money Metals)|silver|5|10|352.00|$1,760.00",
      "1 oz Silver Krugerrand|silver|2|1|37.10|$74.20",
    ]);
    const warn = await page.locator("#scan-warnings").innerText();
    assert.ok(warn.includes("but the total reads $6,464.20"), warn);
    assert.equal(await page.locator("#scan-totals dd.bg-amber-100").count(), 1, "the total is highlighted");
    await shoot(page, "scan-pdf");
  });

  await step("unticking a line leaves it out", async () => {
    await page.locator("input[name=include_2]").uncheck();
    await page.getByRole("button", { name: "Add to holdings" }).click();
    await page.getByText("Added 2 holdings").waitFor();
    const res = await page.evaluate(async () => (await fetch("/holdings")).text());
    assert.ok(res.includes("1/10 oz Gold American Eagle") && !res.includes("1 oz Silver Krugerrand"));
  });

  assert.deepEqual(errors, [], "no console errors (CSP refusals above all)");
} finally {
  await browser.close();
}

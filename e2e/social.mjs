// Social journey on a Stack Signal article, driven by playwright-core against Debian's Chromium:
// two members like and comment (HTMX, keyboard), hostile comments stay inert text, counts
// update without a reload and agree with /v1. BASE_URL is the server the Go test started;
// SHOTS is where the screenshots of the article page go.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

const base = process.env.BASE_URL;
const shots = process.env.SHOTS || "e2e/screenshots";
mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let failed = false;
const step = async (name, fn) => {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    failed = true;
    console.log("FAIL " + name + "\n" + (e.stack || e));
    throw e;
  }
};

// Errors the journey provokes on purpose: the refused over-long comment (422).
const expected = (text) => text.includes("status of 422");
const consoleErrors = [];
const dialogs = [];

async function member(email) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  page.on("console", (m) => { if (m.type() === "error" && !expected(m.text())) consoleErrors.push(email + ": " + m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(email + ": " + e.message));
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  await page.goto(base + "/signup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(base + "/");
  return { ctx, page };
}

const payloads = [
  `<script>window.__xss = 1</script>`,
  `<img src=x onerror="window.__xss = 2">`,
  `<a href="javascript:window.__xss = 3">click me</a> and javascript:window.__xss=4`,
];

try {
  const stamp = Date.now();
  const ann = await member(`ann${stamp}@example.com`);
  const bob = await member(`bob${stamp}@example.com`);
  let articleURL = "";
  let slug = "";

  await step("open the latest synthesis from Stack Signal", async () => {
    await ann.page.goto(base + "/signal");
    await ann.page.locator("section[aria-labelledby=featured-heading] a").first().click();
    await ann.page.locator("#article-like").waitFor();
    articleURL = ann.page.url();
    slug = new URL(articleURL).pathname.split("/").pop();
    assert.match(await ann.page.locator("#article-views").innerText(), /^1 view$/);
    assert.equal(await ann.page.locator("#like-button").getAttribute("aria-pressed"), "false");
    assert.match(await ann.page.locator("#like-count").innerText(), /^0 likes$/);
  });

  await step("ann likes by keyboard; the count changes without a reload", async () => {
    const p = ann.page;
    await p.evaluate(() => { window.__noReload = true; });
    await p.locator("#like-button").focus();
    await p.keyboard.press("Enter");
    await p.locator('#like-button[aria-pressed="true"]').waitFor();
    assert.equal(await p.locator("#like-count").innerText(), "1 like");
    assert.equal(await p.evaluate(() => window.__noReload), true, "the page reloaded");
    assert.equal(await p.evaluate(() => document.activeElement && document.activeElement.id), "like-button", "focus left the like button");
  });

  await step("bob likes with a click", async () => {
    await bob.page.goto(articleURL);
    await bob.page.locator("#like-button").click();
    await bob.page.locator('#like-button[aria-pressed="true"]').waitFor();
    assert.equal(await bob.page.locator("#like-count").innerText(), "2 likes");
  });

  await step("ann comments; the counter counts characters as the server does", async () => {
    const p = ann.page;
    const box = p.getByLabel("Add a comment");
    await box.fill("Registered stocks fell again 🪙");
    assert.equal(await p.locator("#comment-counter").innerText(), "30 / 1,000");
    assert.ok(await p.locator("#comment-form a[href='/settings/account']").isVisible(), "display-name link");
    await p.getByRole("button", { name: "Post comment" }).click();
    await p.locator("#comment-list li", { hasText: "Registered stocks fell again" }).waitFor();
    assert.match(await p.locator("#comments-heading").innerText(), /1 comment/);
    assert.equal(await p.getByLabel("Add a comment").inputValue(), "");
    assert.equal(await p.evaluate(() => window.__noReload), true, "the page reloaded");
  });

  await step("bob's hostile comments are shown as text and run nothing", async () => {
    const p = bob.page;
    for (const x of payloads) {
      await p.getByLabel("Add a comment").fill(x);
      await p.getByRole("button", { name: "Post comment" }).click();
      await p.locator("#comment-list li .comment-body", { hasText: x }).waitFor();
    }
    await p.reload();
    for (const x of payloads) {
      assert.equal(await p.locator("#comment-list .comment-body", { hasText: x }).count(), 1, "payload not shown as text: " + x);
    }
    assert.equal(await p.locator("#comment-list script, #comment-list img, #comment-list a[href^='javascript']").count(), 0);
    assert.equal(await p.evaluate(() => window.__xss), undefined, "a payload ran");
    await p.locator("#comment-list li").last().screenshot({ path: `${shots}/social-xss-comment.png` });
  });

  await step("ann sees bob's comments inert, deletes only her own", async () => {
    const p = ann.page;
    await p.reload();
    assert.equal(await p.evaluate(() => window.__xss), undefined, "a payload ran for ann");
    assert.match(await p.locator("#comments-heading").innerText(), /4 comments/);
    const deletes = p.locator("#comment-list").getByRole("button", { name: /^Delete/ });
    assert.equal(await deletes.count(), 1, "ann may delete only her own comment");
    await deletes.first().click();
    await p.locator("#comment-list li", { hasText: "Registered stocks fell again" }).waitFor({ state: "detached" });
    assert.match(await p.locator("#comments-heading").innerText(), /3 comments/);
  });

  await step("an over-long comment is refused with its text kept", async () => {
    const p = ann.page;
    const long = "🥇".repeat(1001);
    await p.getByLabel("Add a comment").fill(long);
    assert.equal(await p.locator("#comment-counter").innerText(), "1,001 / 1,000");
    assert.equal(await p.locator("#comment-counter").getAttribute("data-over"), "true");
    await p.getByRole("button", { name: "Post comment" }).click();
    await p.locator("#comment-error").waitFor();
    assert.match(await p.locator("#comment-error").innerText(), /1,000 characters/);
    assert.equal(await p.getByLabel("Add a comment").inputValue(), long);
    await p.getByLabel("Add a comment").fill("");
  });

  await step("/v1 agrees with the page", async () => {
    const likes = await (await fetch(`${base}/v1/stack-signal/articles/${slug}/likes`)).json();
    assert.deepEqual(likes, { like_count: 2, user_liked: false });
    const list = await (await fetch(`${base}/v1/stack-signal/articles/${slug}/comments`)).json();
    assert.equal(list.total, 3);
    assert.deepEqual(list.comments.map((c) => c.body), payloads);
    assert.ok(list.comments.every((c) => !("user_id" in c) && !c.author.includes("@")), "authors by display name only");
    const art = await (await fetch(`${base}/v1/stack-signal/${slug}`)).json();
    assert.equal(art.article.like_count, 2);
    assert.equal(art.article.comment_count, 3);
    assert.equal(art.article.view_count, 2);
    const anon = await fetch(`${base}/v1/stack-signal/articles/${slug}/like`, { method: "POST" });
    assert.equal(anon.status, 401);
  });

  await step("the Stack Signal list shows the counts", async () => {
    await bob.page.goto(base + "/signal");
    const counts = await bob.page.locator("section[aria-labelledby=featured-heading] .reader-counts").innerText();
    assert.match(counts, /2 views/);
    assert.match(counts, /2 likes/);
    assert.match(counts, /3 comments/);
  });

  await step("article page at 375 and 1280 px, light and dark", async () => {
    for (const [width, scheme] of [[375, "light"], [375, "dark"], [1280, "light"], [1280, "dark"]]) {
      const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, storageState: await ann.ctx.storageState() });
      const p = await ctx.newPage();
      p.on("console", (m) => { if (m.type() === "error") consoleErrors.push(`${width} ${scheme}: ` + m.text()); });
      await p.goto(articleURL);
      await p.getByLabel("Add a comment").fill("Typing a reply 🪙");
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `article page scrolls sideways at ${width} px by ${overflow}`);
      await p.screenshot({ path: `${shots}/social-article-${width}-${scheme}.png`, fullPage: true });
      await ctx.close();
    }
  });

  await step("no console errors, CSP refusals or dialogs", async () => {
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(dialogs, []);
  });
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);

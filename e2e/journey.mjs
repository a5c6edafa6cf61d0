// What a browser journey needs before its first step: Debian's Chromium launched headless with
// the flags this machine's closed network wants, and a step runner that prints "ok"/"FAIL"
// lines the Go side reports. Older journeys still carry their own copies of these; new ones
// import them from here.
import { chromium } from "playwright-core";

export const chromiumArgs = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export const launchChromium = () =>
  chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: chromiumArgs });

export const step = async (name, fn) => {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    console.log("FAIL " + name + "\n" + (e.stack || e));
    throw e;
  }
};

/* A status line that says what is under way and for how long ("Starting the SQL engine… 4 s"): the
 * stage is announced (aria-live), the seconds are shown but not announced every second. */

import { make } from "./dom.js";

/**
 * @typedef {object} Progress
 * @property {(text: string) => void} stage a new stage: announced, its seconds counted from the start
 * @property {(text: string) => void} done the last word (the clock stops)
 * @property {() => number} elapsed milliseconds since the first stage
 */

/**
 * @param {string} className
 * @returns {HTMLElement & {progress: Progress}}
 */
export function progressLine(className) {
  const line = make("p", className);
  line.setAttribute("role", "status");
  line.setAttribute("aria-live", "polite");
  const words = make("span", "atlas-viewer-progress-text");
  const clock = make("span", "atlas-viewer-progress-clock");
  clock.setAttribute("aria-hidden", "true");
  line.appendChild(words);
  line.appendChild(clock);
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  let started = 0;
  const tick = () => { clock.textContent = " " + Math.floor((performance.now() - started) / 1000) + " s"; };
  /** @type {Progress} */
  const progress = {
    stage(text) {
      if (timer === undefined) {
        started = performance.now();
        timer = setInterval(tick, 1000);
      }
      words.textContent = text;
      line.setAttribute("data-stage", text);
      tick();
    },
    done(text) {
      clearInterval(timer);
      timer = undefined;
      clock.textContent = "";
      words.textContent = text;
      line.removeAttribute("data-stage");
    },
    elapsed() {
      return started ? performance.now() - started : 0;
    },
  };
  return Object.assign(line, { progress });
}

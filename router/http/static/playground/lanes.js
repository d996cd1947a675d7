// One lane per compared variant: its streamed text, its timings and its outcome.
// Every element of a lane exists from the start with a fixed size, so nothing moves while
// tokens stream in.

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

function stat(list, label) {
  const wrap = element("div");
  wrap.append(element("dt", {}, label));
  const value = element("dd", {}, "–");
  wrap.append(value);
  list.append(wrap);
  return value;
}

const FINISHED = new Set(["done", "error", "stopped"]);

export class Lane {
  constructor(container, variant, index) {
    this.variant = variant;
    this.engine = null;
    this.requestId = null;
    this.tokens = 0;
    this.startedAt = performance.now();
    this.firstTokenAt = null;
    this.lastTokenAt = null;
    const id = `lane-${index}`;
    this.root = element("article", { class: "lane", "data-variant": variant, "data-state": "waiting",
      "data-tokens": "0", "aria-labelledby": `${id}-title` });
    const head = element("header");
    head.append(element("h3", { id: `${id}-title` }, variant));
    this.engineLabel = element("span", { class: "engine" }, "");
    this.stateLabel = element("span", { class: "state" }, "waiting");
    head.append(this.engineLabel, this.stateLabel);
    const stats = element("dl", { class: "stats" });
    this.ttftValue = stat(stats, "TTFT");
    this.rateValue = stat(stats, "tokens/s");
    this.countValue = stat(stats, "tokens");
    this.text = element("div", { class: "text", tabindex: "0", role: "region",
      "aria-label": `Answer of ${variant}` });
    this.error = element("p", { class: "error", role: "alert" });
    this.root.append(head, stats, this.text, this.error);
    container.append(this.root);
  }

  get finished() {
    return FINISHED.has(this.root.dataset.state);
  }

  setState(state) {
    this.root.dataset.state = state;
    this.stateLabel.textContent = state;
  }

  // One chat.completion.chunk of this lane.
  chunk(event) {
    if (event.model) this.engine = event.model;
    this.engineLabel.textContent = this.engine || "";
    const delta = event.choices && event.choices[0] && event.choices[0].delta;
    if (!delta || !delta.content) return;
    const now = performance.now();
    if (this.firstTokenAt === null) {
      this.firstTokenAt = now;
      this.ttftValue.textContent = `${Math.round(now - this.startedAt)} ms`;
      this.setState("streaming");
    }
    this.lastTokenAt = now;
    this.tokens += 1; // one delta per engine step: a token count until the server's usage
    this.text.append(delta.content);
    this.text.scrollTop = this.text.scrollHeight;
    this.root.dataset.tokens = String(this.tokens);
    this.countValue.textContent = String(this.tokens);
    const seconds = (this.lastTokenAt - this.firstTokenAt) / 1000;
    if (this.tokens > 1 && seconds > 0) {
      this.rateValue.textContent = ((this.tokens - 1) / seconds).toFixed(1);
    }
  }

  // compare.variant.done: the server's own usage and timings replace the page's estimates.
  done(summary) {
    this.engine = summary.engine;
    this.requestId = summary.request_id;
    this.engineLabel.textContent = summary.engine;
    this.tokens = summary.usage.completion_tokens;
    this.root.dataset.tokens = String(this.tokens);
    this.countValue.textContent = String(this.tokens);
    if (summary.ttft_s !== null) this.ttftValue.textContent = `${Math.round(summary.ttft_s * 1000)} ms`;
    if (summary.tpot_s) this.rateValue.textContent = (1 / summary.tpot_s).toFixed(1);
    this.setState("done");
  }

  fail(error) {
    this.error.textContent = `${error.code ? `${error.code}: ` : ""}${error.message}`;
    this.setState("error");
  }

  stop() {
    if (!this.finished) this.setState("stopped");
  }
}

// The playground page: gateway overview, live classification, side-by-side streaming of a
// route's variants through /v1/compare, a preference vote, and the A/B report.

import { ApiError, apiKey, getJson, postEvents, postJson } from "./api.js";
import { Lane } from "./lanes.js";
import { renderReport } from "./report.js";

const $ = (id) => document.getElementById(id);
const CLASSIFY_DELAY_MS = 250;
const IDLE_POLL_MS = 200;
const IDLE_TIMEOUT_MS = 15000;

const page = {
  routes: new Map(), // route name -> {engine, variants}
  decidedRoute: null,
  classifyTimer: null,
  classifySeq: 0,
  comparison: null, // {controller, lanes: Map, compareId, route, stopped}
};

function row(cells, header = 0) {
  const tr = document.createElement("tr");
  cells.forEach((text, index) => {
    const cell = document.createElement(index < header ? "th" : "td");
    if (index < header) cell.scope = "row";
    if (typeof text === "number") cell.className = "num";
    cell.textContent = String(text);
    tr.append(cell);
  });
  return tr;
}

function say(id, text, isError = false) {
  const node = $(id);
  node.textContent = text;
  node.classList.toggle("is-error", isError);
}

// ---- gateway overview ------------------------------------------------------------------

async function refreshGateway() {
  let models;
  try {
    models = await getJson("/v1/models");
  } catch (error) {
    say("gateway-message", `Cannot list models: ${error.message}`, true);
    return;
  }
  page.routes.clear();
  const routesBody = $("routes-table").tBodies[0];
  routesBody.replaceChildren();
  const engines = new Map();
  for (const model of models.data) {
    if (model.kind === "route") {
      page.routes.set(model.id, { engine: model.engine, variants: model.variants });
      routesBody.append(row([model.id, model.engine, model.variants.join(", ") || "–"], 1));
    } else if (model.kind === "engine") {
      engines.set(model.id.replace(/^engine:/, ""), { model: model.model });
    }
  }
  const select = $("route-select");
  const chosen = select.value;
  select.replaceChildren(new Option("auto (classifier)", "auto"));
  for (const name of page.routes.keys()) select.append(new Option(name, name));
  select.value = page.routes.has(chosen) ? chosen : "auto";

  let status = null;
  try {
    status = await getJson("/admin/status");
    say("gateway-message", "");
  } catch (error) {
    const why = error instanceof ApiError && (error.status === 401 || error.status === 403)
      ? "engine status needs an admin key" : error.message;
    say("gateway-message", `Routes listed; ${why}.`, !(error instanceof ApiError));
  }
  const enginesBody = $("engines-table").tBodies[0];
  enginesBody.replaceChildren();
  for (const [name, info] of engines) {
    const state = status && status.engines[name];
    enginesBody.append(row([name, info.model, state ? state.state : "?",
      state ? state.in_flight ?? state.outstanding ?? 0 : "?",
      state ? state.engine_unfinished : "?"], 1));
  }
  showVariants(currentRoute());
}

// ---- classification --------------------------------------------------------------------

function messages() {
  return [{ role: "user", content: $("prompt").value }];
}

function currentRoute() {
  const chosen = $("route-select").value;
  return chosen === "auto" ? page.decidedRoute : chosen;
}

function showDecision(decision) {
  const fields = $("decision");
  const set = (name, text) => { fields.querySelector(`[data-field="${name}"]`).textContent = text; };
  if (!decision) {
    for (const name of ["route", "confidence", "tier", "languages", "reason"]) set(name, "–");
    return;
  }
  set("route", decision.route);
  set("confidence", decision.confidence.toFixed(2));
  set("tier", decision.tier);
  set("languages", decision.source_language || decision.target_language
    ? `${decision.source_language || "?"} → ${decision.target_language || "?"}` : "–");
  set("reason", decision.reason);
}

async function classify() {
  const seq = ++page.classifySeq;
  if (!$("prompt").value.trim()) {
    page.decidedRoute = null;
    showDecision(null);
    showVariants(currentRoute());
    return;
  }
  try {
    const decision = await postJson("/v1/classify", { model: $("route-select").value, messages: messages() });
    if (seq !== page.classifySeq) return; // an older answer arriving late
    page.decidedRoute = decision.route;
    showDecision(decision);
    $("decision").dataset.route = decision.route;
  } catch (error) {
    if (seq !== page.classifySeq) return;
    showDecision(null);
    say("compare-status", `Classification failed: ${error.message}`, true);
  }
  showVariants(currentRoute());
}

function scheduleClassify() {
  clearTimeout(page.classifyTimer);
  page.classifyTimer = setTimeout(classify, CLASSIFY_DELAY_MS);
}

function showVariants(routeName) {
  const box = $("variant-choice");
  const route = page.routes.get(routeName);
  const shown = [...box.querySelectorAll("input")].map((input) => input.value).join(",");
  if (route && shown === route.variants.join(",") && box.dataset.route === routeName) return;
  const legend = box.querySelector("legend");
  box.replaceChildren(legend);
  box.dataset.route = routeName || "";
  if (!route || route.variants.length < 2) {
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = !route ? "Classify a prompt or pick a route to see its variants."
      : `Route ${routeName} has ${route.variants.length ? "one variant" : "no variants"}: nothing to compare.`;
    box.append(hint);
    return;
  }
  route.variants.forEach((name) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.name = "variant";
    input.value = name;
    input.checked = true;
    label.append(input, ` ${name}`);
    box.append(label);
  });
}

// ---- comparison ------------------------------------------------------------------------

function setRunning(running) {
  $("compare-button").disabled = running;
  $("stop-button").disabled = !running;
}

async function compare(event) {
  event.preventDefault();
  if (page.comparison && !page.comparison.over) return;
  if ($("route-select").value === "auto") {
    clearTimeout(page.classifyTimer); // classify what is typed now, not 250 ms from now
    await classify();
  }
  const routeName = currentRoute();
  const variants = [...document.querySelectorAll('#variant-choice input[name="variant"]:checked')].map((i) => i.value);
  if (!routeName || variants.length < 2) {
    say("compare-status", "Pick a route and two or more of its variants.", true);
    return;
  }
  const container = $("lanes");
  container.replaceChildren();
  container.style.setProperty("--lanes", String(variants.length));
  const lanes = new Map(variants.map((name, index) => [name, new Lane(container, name, index)]));
  prepareVote(variants);
  const comparison = { controller: new AbortController(), lanes, compareId: null, route: routeName,
    stopped: false, over: false };
  page.comparison = comparison;
  setRunning(true);
  say("compare-status", `Streaming ${variants.length} variants of ${routeName}…`);
  const body = { model: routeName, messages: messages(), variants, stream: true,
    max_tokens: Number($("max-tokens").value) || 64 };
  try {
    await postEvents("/v1/compare", body, comparison.controller.signal, (data) => {
      if (data.id && !comparison.compareId) comparison.compareId = data.id;
      const lane = lanes.get(data.variant);
      if (data.object === "chat.completion.chunk" && lane) lane.chunk(data);
      else if (data.object === "compare.variant.done" && lane) lane.done(data);
      else if (data.object === "compare.variant.error" && lane) lane.fail(data.error);
      else if (data.error) for (const l of lanes.values()) if (!l.finished) l.fail(data.error);
    });
    for (const lane of lanes.values()) if (!lane.finished) lane.fail({ message: "the stream ended without this variant's result" });
    const failed = [...lanes.values()].filter((l) => l.root.dataset.state === "error").length;
    say("compare-status", failed ? `Finished; ${failed} variant(s) failed.` : "Finished.", failed > 0);
    offerVote(comparison);
  } catch (error) {
    if (comparison.stopped) {
      say("vote-status", "Stopped: nothing to vote on.");
      await reportIdleEngines(comparison);
    } else {
      for (const lane of lanes.values()) if (!lane.finished) lane.fail({ message: error.message, code: error.code });
      say("compare-status", `Comparison failed: ${error.message}`, true);
    }
  } finally {
    comparison.over = true;
    setRunning(false);
  }
}

function stop() {
  const comparison = page.comparison;
  if (!comparison || comparison.over) return;
  comparison.stopped = true;
  for (const lane of comparison.lanes.values()) lane.stop();
  say("compare-status", "Stopping…");
  comparison.controller.abort();
}

// After a stop, the engines must hold none of the aborted requests: ask /admin/status.
async function reportIdleEngines(comparison) {
  const deadline = performance.now() + IDLE_TIMEOUT_MS;
  for (;;) {
    let status;
    try {
      status = await getJson("/admin/status");
    } catch (error) {
      say("compare-status", `Stopped. Engine state unknown: ${error.message}`, true);
      return;
    }
    const unfinished = Object.values(status.engines).reduce((sum, e) => sum + (e.engine_unfinished || 0), 0);
    $("compare-status").dataset.unfinished = String(unfinished);
    if (unfinished === 0) {
      say("compare-status", "Stopped: the engines hold 0 unfinished requests.");
      refreshGateway();
      return;
    }
    if (performance.now() > deadline) {
      say("compare-status", `Stopped, but the engines still hold ${unfinished} unfinished request(s).`, true);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
  }
}

// ---- vote ------------------------------------------------------------------------------

// The vote form takes its place when the lanes do, disabled until the answers are in, so its
// appearance moves nothing.
function prepareVote(variants) {
  const options = $("vote-options");
  options.replaceChildren();
  const choices = variants.map((name) => [`winner:${name}`, `${name} is better`]);
  choices.push(["outcome:tie", "About the same"], ["outcome:both_bad", "Both bad"]);
  choices.forEach(([value, text], index) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "vote";
    input.value = value;
    input.required = index === 0;
    label.append(input, ` ${text}`);
    options.append(label);
  });
  $("vote-fields").disabled = true;
  $("vote-button").disabled = true;
  say("vote-status", "Vote once both answers are complete.");
  $("vote-form").hidden = false;
}

function offerVote(comparison) {
  const answered = [...comparison.lanes.values()].filter((l) => l.root.dataset.state === "done");
  if (answered.length < 2 || !comparison.compareId) {
    say("vote-status", "Nothing to vote on: fewer than two variants answered.");
    return;
  }
  $("vote-fields").disabled = false;
  $("vote-button").disabled = false;
  say("vote-status", "");
}

async function vote(event) {
  event.preventDefault();
  const comparison = page.comparison;
  const chosen = document.querySelector('#vote-options input[name="vote"]:checked');
  if (!comparison || !chosen) return;
  const [kind, value] = [chosen.value.slice(0, chosen.value.indexOf(":")), chosen.value.slice(chosen.value.indexOf(":") + 1)];
  const lanes = [...comparison.lanes.values()];
  const body = {
    compare_id: comparison.compareId, route: comparison.route, variants: lanes.map((l) => l.variant),
    request_ids: lanes.map((l) => l.requestId).filter(Boolean),
    ...(kind === "winner" ? { winner: value } : { outcome: value }),
  };
  $("vote-button").disabled = true;
  try {
    await postJson("/v1/compare/vote", body);
    $("vote-fields").disabled = true;
    say("vote-status", "Vote recorded.");
  } catch (error) {
    $("vote-button").disabled = false;
    say("vote-status", `Vote not recorded: ${error.message}`, true);
  }
}

// ---- report ----------------------------------------------------------------------------

async function loadReport() {
  const traffic = [...document.querySelectorAll('#report-options input[name="traffic"]:checked')].map((i) => i.value);
  if (!traffic.length) {
    say("report-message", "Pick at least one kind of traffic.", true);
    return;
  }
  const query = new URLSearchParams({ traffic: traffic.join(","),
    include_forced: String($("include-forced").checked), include_aborted: String($("include-aborted").checked) });
  say("report-message", "Loading…");
  try {
    const report = await getJson(`/admin/ab-report?${query}`);
    renderReport($("report"), report);
    say("report-message", `${report.records} records in ${report.record_file}${report.skipped ? ` (${report.skipped} unreadable lines skipped)` : ""}.`);
  } catch (error) {
    say("report-message", `No report: ${error.message}`, true);
  }
}

// ---- wiring ----------------------------------------------------------------------------

function start() {
  $("api-key").value = apiKey.get();
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    apiKey.set($("api-key").value.trim());
    refreshGateway();
  });
  $("forget-key").addEventListener("click", () => {
    apiKey.set("");
    $("api-key").value = "";
    refreshGateway();
  });
  $("refresh-gateway").addEventListener("click", refreshGateway);
  $("prompt").addEventListener("input", scheduleClassify);
  $("route-select").addEventListener("change", classify);
  $("compare-form").addEventListener("submit", compare);
  $("prompt").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("compare-form").requestSubmit();
  });
  $("stop-button").addEventListener("click", stop);
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") stop(); });
  $("vote-form").addEventListener("submit", vote);
  $("load-report").addEventListener("click", loadReport);
  refreshGateway();
}

start();

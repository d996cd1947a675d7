// The gateway's HTTP API as the page uses it: the key (this tab only), JSON calls that turn
// OpenAI-shaped errors into exceptions, and a reader for /v1/compare's SSE stream.

const KEY_SLOT = "switchboard.playground.key";

export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// sessionStorage belongs to this tab: the key never reaches another tab or the disk profile.
export const apiKey = {
  get: () => sessionStorage.getItem(KEY_SLOT) || "",
  set: (key) => (key ? sessionStorage.setItem(KEY_SLOT, key) : sessionStorage.removeItem(KEY_SLOT)),
};

function headers(json) {
  const out = {};
  if (json) out["content-type"] = "application/json";
  const key = apiKey.get();
  if (key) out.authorization = `Bearer ${key}`;
  return out;
}

async function errorOf(response) {
  let message = `${response.status} ${response.statusText}`;
  let code = null;
  try {
    const body = await response.json();
    if (body && body.error) {
      message = `${response.status}: ${body.error.message}`;
      code = body.error.code;
    }
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, message, code);
}

export async function getJson(path) {
  const response = await fetch(path, { headers: headers(false) });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

export async function postJson(path, body, signal) {
  const response = await fetch(path, {
    method: "POST", headers: headers(true), body: JSON.stringify(body), signal,
  });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

// POST a streaming body and call onEvent(parsedJson) for every `data:` event until [DONE].
// Aborting `signal` closes the connection: the gateway aborts every engine request.
export async function postEvents(path, body, signal, onEvent) {
  const response = await fetch(path, {
    method: "POST", headers: headers(true), body: JSON.stringify(body), signal,
  });
  if (!response.ok) throw await errorOf(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart()).join("\n");
      if (!data) continue;
      if (data === "[DONE]") return;
      onEvent(JSON.parse(data));
    }
  }
}

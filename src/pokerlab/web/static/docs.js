// The API reference, drawn from /openapi.json by this file alone (no third-party code, nothing from another
// host: it works offline). Each endpoint: its summary, its request fields (type, default, allowed values,
// limits) and its answers; a form sends a JSON body and shows the answer.
"use strict";

const node = (tag, attrs = {}, ...children) => {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") element.textContent = value;
    else element.setAttribute(key, value);
  }
  element.append(...children);
  return element;
};

function resolve(document, schema) {
  if (schema && schema.$ref) return document.components.schemas[schema.$ref.split("/").pop()];
  return schema || {};
}

function typeOf(document, schema) {
  schema = resolve(document, schema);
  if (schema.anyOf) return schema.anyOf.map((s) => typeOf(document, s)).join(" or ");
  if (schema.type === "array") return `list of ${typeOf(document, schema.items)}`;
  if (schema.type === "object" && schema.additionalProperties) {
    return `object of ${typeOf(document, schema.additionalProperties)}`;
  }
  return schema.type === "null" ? "null" : schema.type || "any";
}

function constraints(schema) {
  const words = [];
  if (schema.enum) words.push(`one of ${schema.enum.join(", ")}`);
  for (const [key, word] of [["minItems", "at least %s items"], ["maxItems", "at most %s items"],
    ["maxLength", "at most %s characters"], ["minimum", ">= %s"], ["maximum", "<= %s"]]) {
    if (schema[key] !== undefined) words.push(word.replace("%s", schema[key].toLocaleString("en-US")));
  }
  return words.join("; ");
}

function fieldTable(document, schema) {
  schema = resolve(document, schema);
  const required = new Set(schema.required || []);
  const rows = Object.entries(schema.properties || {}).map(([name, field]) => node("tr", {},
    node("td", { class: "text" }, node("code", { text: name })),
    node("td", { class: "text", text: typeOf(document, field) + (required.has(name) ? " (required)" : "") }),
    node("td", { class: "text", text: field.default === undefined ? "" : JSON.stringify(field.default) }),
    node("td", { class: "text", text: [constraints(field), field.description || ""].filter(Boolean).join(". ") })));
  return node("table", {}, node("thead", {}, node("tr", {}, ...["field", "type", "default", "allowed values, notes"]
    .map((h) => node("th", { class: "text", text: h })))), node("tbody", {}, ...rows));
}

function tryIt(path, example) {
  const input = node("textarea", { rows: "4", spellcheck: "false" });
  input.value = JSON.stringify(example);
  const output = node("pre", { class: "summary" });
  const button = node("button", { type: "button", text: "send" });
  button.addEventListener("click", async () => {
    output.textContent = "…";
    try {
      const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
        body: input.value });
      output.textContent = `${response.status}\n${(await response.text()).slice(0, 4000)}`;
    } catch (error) {
      output.textContent = String(error);
    }
  });
  return node("div", {}, input, button, output);
}

function example(document, schema) {
  schema = resolve(document, schema);
  const body = {};
  for (const [name, field] of Object.entries(schema.properties || {})) {
    if (field.examples) body[name] = field.examples[0];
  }
  return body;
}

function render(document) {
  const main = window.document.getElementById("docs");
  window.document.getElementById("version").textContent = `version ${document.info.version}`;
  const description = node("div", {});
  for (const paragraph of document.info.description.split("\n\n")) {
    if (paragraph.startsWith("- ")) {
      description.append(node("ul", {}, ...paragraph.split("\n").map((line) => node("li", { text: line.slice(2) }))));
    } else {
      description.append(node("p", { text: paragraph }));
    }
  }
  main.replaceChildren(description);
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const section = node("section", { class: "column", id: `${method}-${path}` },
        node("h3", { text: `${method.toUpperCase()} ${path}` }),
        node("p", { text: operation.description || operation.summary || "" }));
      const body = operation.requestBody && operation.requestBody.content["application/json"];
      if (body) {
        section.append(fieldTable(document, body.schema));
        section.append(tryIt(path, example(document, body.schema)));
      }
      const answers = Object.entries(operation.responses).map(([status, answer]) => node("li", {},
        node("b", { text: status }), ` ${answer.description} (${Object.keys(answer.content || {}).join(", ")})`));
      section.append(node("ul", {}, ...answers));
      main.append(section);
    }
  }
  window.document.body.dataset.ready = "1";
}

fetch("/openapi.json").then((r) => r.json()).then(render).catch((error) => {
  document.getElementById("docs").textContent = `could not read /openapi.json: ${error}`;
});

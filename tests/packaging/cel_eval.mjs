// Evaluates a ValidatingAdmissionPolicy's match conditions, variables and validations, as the
// API server does, on each case's request, object, oldObject and params, with @bufbuild/cel (a
// CEL implementation; scripts/npm-tools).
//   node cel_eval.mjs NODE_MODULES < {"matchConditions": [...], "variables": [...],
//                                     "validations": [...], "cases": [...]}
// Prints one JSON object per case: {"name", "matched", "denied": [messages of failed
// validations], "errors": [evaluation errors]}. A request that a match condition excludes is not
// validated. An expression that fails to evaluate denies, as under failurePolicy Fail.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { run, isCelError } = await import(
  pathToFileURL(`${process.argv[2]}/@bufbuild/cel/dist/esm/index.js`).href);

// JSON as CEL sees a Kubernetes object: maps, lists, int for integral numbers.
function toCel(value) {
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === "object") {
    return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  }
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  return value;
}

const input = JSON.parse(readFileSync(0, "utf8"));
for (const c of input.cases) {
  const bindings = {
    object: toCel(c.object),
    oldObject: toCel(c.oldObject ?? null),
    params: toCel(c.params ?? null),
    request: toCel({ operation: c.oldObject ? "UPDATE" : "CREATE" }),
  };
  const variables = new Map();
  const result = { name: c.name, matched: true, denied: [], errors: [] };
  // An evaluation error is returned as a value (or thrown, for a syntax error).
  const evaluate = (expression) => {
    const value = run(expression, { ...bindings, variables });
    if (isCelError(value)) throw new Error(`${expression.trim()}: ${value.message}`);
    return value;
  };
  try {
    result.matched = (input.matchConditions ?? []).every((m) => evaluate(m.expression) === true);
    if (!result.matched) {
      console.log(JSON.stringify(result));
      continue;
    }
    for (const v of input.variables) variables.set(v.name, evaluate(v.expression));
    for (const check of input.validations) {
      if (evaluate(check.expression) !== true) result.denied.push(check.message);
    }
  } catch (e) {
    result.errors.push(String(e.message ?? e));
  }
  console.log(JSON.stringify(result));
}

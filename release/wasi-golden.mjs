// Runs the wasm32-wasip1 build of config-hash on every golden case under testdata/ with
// Node.js's own WASI (no other runtime needed), as release/golden-run.sh runs a native
// binary, writing the same OUT/<case>.stdout, .stderr and .status files, so the two
// directories compare byte for byte.
//
//   node --expose-gc release/wasi-golden.mjs OUT config-hash.wasm
//
// The module is compiled once; each case gets a fresh instance. A case that reads
// files (args, prune) sees its own directory as the working directory.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { WASI } from "node:wasi";

const [out, wasmPath] = process.argv.slice(2);
if (!out || !wasmPath) {
  console.error("usage: node --expose-gc release/wasi-golden.mjs OUT config-hash.wasm");
  process.exit(2);
}
if (typeof globalThis.gc !== "function") {
  console.error("wasi-golden: run node with --expose-gc (see the comment at the collection)");
  process.exit(2);
}
const root = resolve(new URL("..", import.meta.url).pathname);
const testdata = join(root, "testdata");
mkdirSync(out, { recursive: true });
const module = new WebAssembly.Module(readFileSync(wasmPath));

const lines = (file) =>
  readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");

let cases = 0;
for (const name of readdirSync(testdata).sort()) {
  const dir = join(testdata, name);
  let args = [];
  let stdinPath = "/dev/null";
  if (existsSync(join(dir, "live.yaml"))) {
    const extra = existsSync(join(dir, "args")) ? lines(join(dir, "args")) : [];
    args = ["prune", "--live", "live.yaml", ...extra, "render.yaml"];
  } else if (existsSync(join(dir, "args"))) {
    args = lines(join(dir, "args"));
  } else {
    stdinPath = join(dir, existsSync(join(dir, "input.yaml")) ? "input.yaml" : "input.json");
  }
  const stdin = openSync(stdinPath, "r");
  const stdout = openSync(join(out, `${name}.stdout`), "w");
  const stderr = openSync(join(out, `${name}.stderr`), "w");
  const wasi = new WASI({
    version: "preview1",
    args: ["config-hash", ...args],
    env: {},
    // The case's directory as "." and "/": relative paths resolve into it.
    preopens: { ".": dir, "/": dir },
    stdin,
    stdout,
    stderr,
    returnOnExit: true,
  });
  const instance = new WebAssembly.Instance(module, wasi.getImportObject());
  let status;
  try {
    status = wasi.start(instance);
  } catch (e) {
    // A trap (a panic is an abort on wasm): the process would have died of a signal.
    status = `trap: ${e.message}`;
  }
  for (const fd of [stdin, stdout, stderr]) closeSync(fd);
  writeFileSync(join(out, `${name}.status`), `${status}\n`);
  // Each instance holds a linear memory with a large address-space reservation; left to
  // the collector's own pace, a few hundred of them crash Node.js 20. Collect each one.
  globalThis.gc();
  cases += 1;
}
if (cases === 0) {
  console.error("wasi-golden: no case under testdata/");
  process.exit(1);
}
console.log(`wasi-golden: ${cases} cases run with ${wasmPath} under Node.js ${process.version} WASI`);

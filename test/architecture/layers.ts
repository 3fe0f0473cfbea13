// The dependency rule, checked: imports point from the edges to the core, never back, with no
// cycle anywhere. `npm run check:layers` runs it on the repository (and .ci/run does); the test
// beside it shows that it fails on an inward import and on a cycle.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The daemon's layers, lowest first: a layer may import only from layers below it (and from
 * protocols/). Reading down the list is the data flow: bytes → board events → moves → store →
 * the runtime that wires a hall → the server → the composition root and the command line.
 */
export const DAEMON_LAYERS: readonly (readonly string[])[] = [
  ['install', 'log'],
  ['transport'],
  ['board', 'simulation'],
  ['reconstruction'],
  ['store'],
  ['tournament'],
  ['runtime'],
  ['server'],
  ['app'],
  ['cli'],
];

/** Edges that may use each other besides protocols/: the server mounts the polled bridges. */
const EDGE_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  'daemon/server': ['bridge'],
  'daemon/app': ['bridge'],
  'daemon/cli': ['bridge'],
};

export interface LayerReport {
  /** "from -> to: file imports spec" for every import that points the wrong way. */
  inward: string[];
  /** Each cycle between units, as "a -> b -> a". */
  cycles: string[];
  /** Folders the rule does not know yet (a new daemon/ layer must be placed in DAEMON_LAYERS). */
  unknown: string[];
}

const TOPS = ['protocols', 'daemon', 'bridge', 'viewer'];

/** The unit a file belongs to: protocols/<sub>, daemon/<layer>, bridge or viewer. */
function unitOf(rel: string): string {
  const parts = rel.split(sep);
  // A file directly in protocols/ (result.ts, board-events.ts) is a unit of its own.
  if (parts[0] === 'protocols' || parts[0] === 'daemon') return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts.join('/');
  return parts[0]!;
}

function rankOf(unit: string): number | undefined {
  const layer = unit.slice('daemon/'.length);
  const i = DAEMON_LAYERS.findIndex((names) => names.includes(layer));
  return i < 0 ? undefined : i;
}

/** Whether `from` may import `to` (different units). */
function allowed(from: string, to: string): boolean {
  const top = (u: string): string => u.split('/')[0]!;
  if (top(to) === 'protocols') return true; // everyone may use the pure formats and rules
  if (top(from) === 'protocols') return false;
  if (EDGE_IMPORTS[from]?.includes(to)) return true;
  if (top(from) === 'bridge' || top(from) === 'viewer') return false;
  if (top(from) === 'daemon' && top(to) === 'daemon') {
    const a = rankOf(from);
    const b = rankOf(to);
    return a !== undefined && b !== undefined && b < a;
  }
  return false;
}

function sourceFiles(dir: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (n === 'node_modules' || n === 'dist' || n.startsWith('.')) continue;
    const p = join(dir, n);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|mts|mjs|js)$/.test(n) && !n.endsWith('.d.ts')) out.push(p);
  }
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

export function checkLayers(root: string): LayerReport {
  const files: string[] = [];
  for (const top of TOPS) sourceFiles(join(root, top), files);
  const edges = new Map<string, Set<string>>();
  const inward: string[] = [];
  const unknown = new Set<string>();
  for (const file of files) {
    const from = unitOf(relative(root, file));
    if (from.startsWith('daemon/') && rankOf(from) === undefined) unknown.add(from);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
      const target = relative(root, resolve(dirname(file), spec));
      if (target.startsWith('..') || !TOPS.includes(target.split(sep)[0]!)) continue;
      const to = unitOf(target);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
      if (!allowed(from, to)) inward.push(`${from} -> ${to}: ${relative(root, file)} imports ${spec}`);
    }
  }
  return { inward, cycles: findCycles(edges), unknown: [...unknown].sort() };
}

/** One cycle per strongly connected component of more than one unit (Tarjan). */
function findCycles(edges: Map<string, Set<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) out.push(describeCycle(component, edges));
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** A concrete cycle through the component's first unit, for the message. */
function describeCycle(component: string[], edges: Map<string, Set<string>>): string {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const path = [start];
  const seen = new Set([start]);
  for (let at = start; ;) {
    const nexts = [...(edges.get(at) ?? [])].filter((w) => members.has(w)).sort();
    const back = nexts.find((w) => w === start);
    if (back && path.length > 1) return [...path, start].join(' -> ');
    const step = nexts.find((w) => !seen.has(w)) ?? back;
    if (!step) return [...path, '…'].join(' -> ');
    if (step === start) return [...path, start].join(' -> ');
    path.push(step);
    seen.add(step);
    at = step;
  }
}

export function formatReport(r: LayerReport): string {
  const lines: string[] = [];
  for (const i of r.inward) lines.push(`inward import: ${i}`);
  for (const c of r.cycles) lines.push(`cycle: ${c}`);
  for (const u of r.unknown) lines.push(`unknown layer: ${u} (place it in DAEMON_LAYERS, test/architecture/layers.ts)`);
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? '.');
  const report = checkLayers(root);
  const text = formatReport(report);
  if (text) {
    console.error(text);
    console.error('\nImports must point from the edges to the core (protocols ← daemon layers ← bridge, viewer); see README, "Data flow".');
    process.exit(1);
  }
  console.log('layers: every import points inward, no cycles');
}

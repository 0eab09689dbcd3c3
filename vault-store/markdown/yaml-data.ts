import { Composer, isNode, isScalar, Lexer, Parser, visit, type CST, type Document, type Node } from 'yaml';
import { simpleYamlData } from './yaml-simple.js';

/**
 * Nesting limit, counted on the yaml parser's stack of open nodes (about one per level)
 * and again on the data, where aliases can nest further. The library composes recursively:
 * 20,000 `[` overflow the stack, so depth is refused before anything is composed.
 */
const MAX_YAML_DEPTH = 32;
/** The yaml library's own default, named: a billion-laughs block is refused at the 101st expansion. */
const MAX_ALIAS_COUNT = 100;
/** The data as JSON would spell it out, aliases expanded, at most (about) this many characters. */
const MAX_EXPANDED_CHARS = 256 * 1024;

/** The data, or what is wrong with the block, worded to follow its subject ("front-matter is …"). */
export type YamlData = { data: Record<string, unknown> } | { error: string };

/** Lexes and parses to a syntax tree, or undefined as soon as it nests deeper than the limit. */
function syntaxTree(source: string): CST.Token[] | undefined {
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(source)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > MAX_YAML_DEPTH) return undefined;
  }
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

/** The yaml library makes an Error, stack trace and all, per problem; a hostile block has thousands. */
function withoutStackTraces<T>(run: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return run();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Walks the data within the depth and size limits, checking it is what JSON holds (plain
 * objects, arrays, strings, numbers, booleans, null); non-finite numbers become null, as in JSON.
 */
function checkData(value: unknown, depth: number, budget: { left: number }): string | undefined {
  if (depth > MAX_YAML_DEPTH) return `is nested deeper than ${MAX_YAML_DEPTH} levels`;
  budget.left -= typeof value === 'string' ? value.length + 2 : 4;
  if (budget.left < 0) return `expands to more than ${MAX_EXPANDED_CHARS} characters (aliases)`;
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? 'holds an integer JSON cannot hold' : undefined;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return 'holds a value JSON cannot hold';
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [key, child] of entries) {
    if (typeof child === 'number' && !Number.isFinite(child)) (value as Record<string | number, unknown>)[key] = null;
    if (typeof key === 'string') budget.left -= key.length + 3;
    const problem = checkData(child, depth + 1, budget);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The first key that JSON cannot hold (a list, a mapping or an alias: the library would spell
 * it out as a string) or that repeats within its mapping. The library's own repeat check
 * (`uniqueKeys`) compares each key with every earlier one, quadratic in the keys of a
 * mapping; this is one Set per mapping.
 */
function badKey(doc: Document): { key: Node; problem: string } | undefined {
  let found: { key: Node; problem: string } | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const at = (isNode(key) ? key : map) as Node;
        if (key !== null && !isScalar(key)) found = { key: at, problem: 'a key that is not a plain value' };
        const value = isScalar(key) ? key.value : null;
        if (!found && seen.has(value)) found = { key: at, problem: 'Map keys must be unique' };
        if (found) return visit.BREAK;
        seen.add(value);
      }
      return undefined;
    },
  });
  return found;
}

function lineOf(source: string, offset: number): number {
  let line = 1;
  for (let at = source.indexOf('\n'); at >= 0 && at < offset; at = source.indexOf('\n', at + 1)) line++;
  return line;
}

/**
 * Reads a YAML mapping as plain JSON-safe data, evaluating nothing: the 1.2 core schema
 * (no timestamps, no `!!js/*`), and any error or warning (unknown tag, duplicate key,
 * several documents) refuses the whole block. `firstLine` numbers the lines in messages.
 * A block of the simple shape most pages have is read without the library's parser (see
 * yaml-simple.ts), to the same data.
 */
export function readYamlData(source: string, firstLine: number): YamlData {
  const simple = simpleYamlData(source);
  return simple ? checked(simple) : composeYamlData(source, firstLine);
}

function checked(data: Record<string, unknown>): YamlData {
  const wrong = checkData(data, 0, { left: MAX_EXPANDED_CHARS });
  return wrong ? { error: wrong } : { data };
}

/** `readYamlData` by the yaml library alone, whatever the block's shape. */
export function composeYamlData(source: string, firstLine: number): YamlData {
  const tokens = syntaxTree(source);
  if (!tokens) return { error: `is nested deeper than ${MAX_YAML_DEPTH} levels` };
  return withoutStackTraces(() => {
    // resolveKnownTags off: `!!binary`, `!!timestamp`, `!!set`… would give a Buffer, a Date, a Set.
    const composer = new Composer({ schema: 'core', resolveKnownTags: false, uniqueKeys: false, logLevel: 'silent', prettyErrors: false });
    const docs = [...composer.compose(tokens, true, source.length)];
    if (docs.length !== 1) return { error: 'holds more than one YAML document' };
    const [doc] = docs;
    const line = (offset: number) => firstLine - 1 + lineOf(source, offset);
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) return { error: `is not valid YAML: ${problem.message} (line ${line(problem.pos[0])})` };
    const wrongKey = badKey(doc);
    if (wrongKey) return { error: `is not valid YAML: ${wrongKey.problem} (line ${line(wrongKey.key.range?.[0] ?? 0)})` };
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      return { error: `is not valid YAML: ${(err as Error).message}` };
    }
    if (data === null || data === undefined) return { data: {} };
    if (typeof data !== 'object' || Array.isArray(data))
      return { error: `is ${Array.isArray(data) ? 'a list' : 'a single value'}, not a mapping of keys to values` };
    return checked(data as Record<string, unknown>);
  });
}

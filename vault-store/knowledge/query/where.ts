import jsonLogic from 'json-logic-js';
import { QuireError } from '../../errors.js';
import { foldKey } from '../fields/page-fields.js';

export const MAX_WHERE_DEPTH = 32;
export const MAX_WHERE_NODES = 1000;

/**
 * JsonLogic's operators, less `log` (it writes to the server's console). json-logic-js 2 has
 * no `method` operator, and none is added: nothing in a `where` can call a function.
 */
const OPERATORS = new Set([
  ...['var', 'missing', 'missing_some', 'if', '?:', 'and', 'or', '!', '!!'],
  ...['==', '===', '!=', '!==', '>', '>=', '<', '<=', 'in', 'cat', 'substr'],
  ...['+', '-', '*', '/', '%', 'min', 'max', 'merge'],
  ...['map', 'filter', 'reduce', 'all', 'none', 'some'],
]);
/** Operators whose second argument runs once per item of their first. */
const ITERATING = new Set(['map', 'filter', 'reduce', 'all', 'none', 'some']);
/** Names that would step from data into JavaScript's objects (functions, prototypes). */
const UNSAFE_SEGMENT = new Set(['__proto__', 'constructor', 'prototype']);

/** A checked `where`, ready to run on rows. */
export interface Where {
  logic: unknown;
  /** The row fields it reads (case-folded, first segment of each name); 'all' when it reads the whole row. */
  reads: Set<string> | 'all';
}

interface Scope {
  /** Inside an iterating operator's per-item logic: `var` reads the item, not the row. */
  perItem: boolean;
  /** Inside `reduce`'s per-item logic: `accumulator` may be read once (twice doubles a value per item). */
  accumulatorReads?: { n: number };
}

function refuse(at: string, message: string): never {
  throw new QuireError('INVALID_REQUEST', `${at}: ${message}`, { field: at });
}

/**
 * Checks a `where` before anything runs: at most 32 levels and 1,000 nodes, only the operators
 * above, `var` and `missing` with literal names that stay in the data, and no iterating
 * operator inside another's per-item logic, so a row's cost is bounded by its lists' lengths
 * times the expression's size. `literal` rewrites each string constant (dates, wiki links)
 * into the form rows hold. Refusals name the offending part (`where.and[1].>`).
 */
export function prepareWhere(where: unknown, literal: (s: string) => string): Where {
  const state = { nodes: 0, reads: new Set<string>() as Set<string> | 'all' };

  const read = (name: string, scope: Scope, at: string): void => {
    const segments = name.split('.');
    if (segments.some((s) => UNSAFE_SEGMENT.has(s))) refuse(at, `"${name}" is not a field name`);
    if (scope.accumulatorReads && segments[0] === 'accumulator' && ++scope.accumulatorReads.n > 1) {
      refuse(at, 'reduce may read "accumulator" only once');
    }
    if (!scope.perItem && state.reads !== 'all') {
      if (name === '') state.reads = 'all';
      else state.reads.add(segments[0]);
    }
  };

  const walk = (node: unknown, at: string, depth: number, scope: Scope): unknown => {
    if (depth > MAX_WHERE_DEPTH) refuse(at, `nested deeper than ${MAX_WHERE_DEPTH} levels`);
    if (++state.nodes > MAX_WHERE_NODES) refuse(at, `more than ${MAX_WHERE_NODES} nodes`);
    if (typeof node === 'string') return literal(node);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${at}[${i}]`, depth + 1, scope));
    if (node === null || typeof node !== 'object') return node;
    if (!jsonLogic.is_logic(node)) {
      // Several keys: JsonLogic takes the object as a constant, not an operation.
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        if (key !== '__proto__') out[key] = walk(value, `${at}.${key}`, depth + 1, scope);
      }
      return out;
    }
    const op = jsonLogic.get_operator(node) as string;
    const here = `${at}.${op}`;
    if (!OPERATORS.has(op)) refuse(here, `unknown operator "${op}"`);
    const raw = (node as Record<string, unknown>)[op];
    const args = Array.isArray(raw) ? raw : [raw];
    if (op === 'var') return { var: varArgs(args, here, depth, scope) };
    if (op === 'missing' || op === 'missing_some') return { [op]: missingArgs(op, args, here, scope) };
    if (ITERATING.has(op)) {
      if (scope.perItem) refuse(here, `"${op}" inside another iterating operator's logic`);
      const inner: Scope = { perItem: true, accumulatorReads: op === 'reduce' ? { n: 0 } : undefined };
      return {
        [op]: args.map((arg, i) => walk(arg, `${here}[${i}]`, depth + 2, i === 1 ? inner : scope)),
      };
    }
    return { [op]: args.map((arg, i) => walk(arg, `${here}[${i}]`, depth + 2, scope)) };
  };

  const varArgs = (args: unknown[], at: string, depth: number, scope: Scope): unknown[] => {
    const [name, ...rest] = args;
    if (args.length > 2) refuse(at, 'var takes a name and a default');
    if (name !== undefined && name !== null && typeof name !== 'string' && typeof name !== 'number') {
      refuse(at, 'var needs a literal field name');
    }
    const folded = name === undefined || name === null ? '' : foldKey(String(name));
    read(folded, scope, at);
    state.nodes += 1;
    return [folded, ...rest.map((d) => walk(d, `${at}[1]`, depth + 2, scope))];
  };

  const missingArgs = (op: string, args: unknown[], at: string, scope: Scope): unknown[] => {
    const names = op === 'missing_some' ? args[1] : args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
    if (op === 'missing_some' && typeof args[0] !== 'number') refuse(at, 'missing_some needs a count first');
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) refuse(at, `${op} needs literal field names`);
    state.nodes += names.length;
    const folded = names.map((n) => foldKey(n));
    for (const name of folded) read(name, scope, at);
    return op === 'missing_some' ? [args[0], folded] : folded;
  };

  const logic = walk(where, 'where', 1, { perItem: false });
  return { logic, reads: state.reads };
}

const MAX_REMEMBERED = 100_000;

/**
 * The test of rows for one query. A `where` is pure data over the row, so when it reads one
 * field its answer depends on that value alone: a value (not a list or object) is evaluated
 * once and remembered. Vaults repeat values (a few thousand dates, a handful of statuses),
 * and JsonLogic's own evaluation was the largest cost of a whole-vault query.
 */
export function rowTest(where: Where): (row: Record<string, unknown>) => boolean {
  if (where.reads === 'all' || where.reads.size > 1) return (row) => passes(where, row);
  const [name] = where.reads;
  const remembered = new Map<unknown, boolean>();
  return (row) => {
    const value = name === undefined ? undefined : row[name];
    if (value !== null && typeof value === 'object') return passes(where, row);
    let answer = remembered.get(value);
    if (answer === undefined) {
      answer = passes(where, row);
      if (remembered.size < MAX_REMEMBERED) remembered.set(value, answer);
    }
    return answer;
  };
}

/** Whether a row passes; a row the expression cannot be applied to does not. */
export function passes(where: Where, row: unknown): boolean {
  try {
    return jsonLogic.truthy(jsonLogic.apply(where.logic as jsonLogic.RulesLogic, row as Record<string, unknown>));
  } catch {
    return false;
  }
}

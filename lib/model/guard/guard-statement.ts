/*
 * The rules a trainee's guard must pass before it runs (issue 15, "Bring your own guard"): one UPDATE
 * of the lab's own table, with $1 the value, $2 the token and $3 the row id, and nothing that could
 * reach beyond that row. Pure: it judges the tree PostgreSQL's own parser made (libpg-query's JSON
 * form, parsed at the edge: lib/server/guard-parser.ts), never the text. An allow-list: a node of a
 * kind not named here is refused, whatever it is. PostgreSQL enforces the same boundary again (the
 * statement runs as a role that can touch only this table: 0033_your_guard_lab.sql).
 */

export const GUARD_TABLE = 'guarded_row';
export const GUARD_COLUMNS = ['id', 'value', 'last_token'] as const;
/** What the guard may SET: the row's id stays. */
const SETTABLE = new Set(['value', 'last_token']);
export const MAX_GUARD_CHARS = 2_000;

export type GuardRefusal =
  | 'not-one-statement'
  | 'not-update'
  | 'other-table'
  | 'with'
  | 'from'
  | 'returning'
  | 'function-call'
  | 'sub-select'
  | 'parameter'
  | 'column'
  | 'operator'
  | 'cast'
  | 'number'
  | 'not-allowed';

export type GuardCheck = { ok: true } | { ok: false; refusal: GuardRefusal; reason: string };

type Node = Record<string, unknown>;

const OPERATORS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/']);
/**
 * Casts between integers and text: enough for the classic mistake (`last_token::text <= $2::text`). Not
 * `numeric` (tokens are bigint): its arithmetic on a huge constant burns a CPU for seconds a write.
 */
const CAST_TYPES = new Set(['text', 'varchar', 'int8', 'int4', 'int2', 'bigint', 'integer']);
/** A number constant (or a string read as one) has at most this many digits, and no exponent. */
const MAX_NUMBER_DIGITS = 19;
/** Expression nodes a guard may hold (each checked further below where it needs it). */
const EXPRESSIONS = new Set([
  'A_Const',
  'A_Expr',
  'BoolExpr',
  'NullTest',
  'BooleanTest',
  'ColumnRef',
  'ParamRef',
  'TypeCast',
  'List',
  'String',
]);
const WORDS: Record<string, { refusal: GuardRefusal; words: string }> = {
  FuncCall: { refusal: 'function-call', words: 'a function call' },
  SubLink: { refusal: 'sub-select', words: 'a sub-select' },
  SelectStmt: { refusal: 'sub-select', words: 'a sub-select' },
  CurrentOfExpr: { refusal: 'not-allowed', words: 'WHERE CURRENT OF' },
  SQLValueFunction: { refusal: 'function-call', words: 'a function (such as now or current_user)' },
  CoalesceExpr: { refusal: 'function-call', words: 'COALESCE' },
  MinMaxExpr: { refusal: 'function-call', words: 'GREATEST or LEAST' },
  CaseExpr: { refusal: 'not-allowed', words: 'CASE' },
  RowExpr: { refusal: 'not-allowed', words: 'a row constructor' },
  A_ArrayExpr: { refusal: 'not-allowed', words: 'an array' },
  CollateClause: { refusal: 'not-allowed', words: 'COLLATE' },
};

const refuse = (refusal: GuardRefusal, reason: string): GuardCheck => ({ ok: false, refusal, reason });
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((item) => (isNode(item) && isNode(item.String) ? String(item.String.sval) : '?')) : [];

/** Checks a parse tree (`{ stmts: [...] }`) of the statement a trainee submitted. */
export function checkGuardTree(tree: unknown): GuardCheck {
  const stmts = isNode(tree) && Array.isArray(tree.stmts) ? tree.stmts : [];
  if (stmts.length !== 1) {
    return refuse('not-one-statement', `a guard is exactly one statement, and this is ${stmts.length}`);
  }
  const stmt = isNode(stmts[0]) && isNode(stmts[0].stmt) ? stmts[0].stmt : {};
  const kind = Object.keys(stmt)[0] ?? 'nothing';
  const update = stmt.UpdateStmt;
  if (!isNode(update)) {
    return refuse('not-update', `a guard is an UPDATE of ${GUARD_TABLE}, not ${statementWords(kind)}`);
  }
  if (update.withClause) return refuse('with', 'a guard has no WITH clause');
  const relation = isNode(update.relation) ? update.relation : {};
  const table = [relation.catalogname, relation.schemaname, relation.relname].filter(Boolean).join('.');
  if (table !== GUARD_TABLE) {
    return refuse(
      'other-table',
      `a guard updates ${GUARD_TABLE}, the lab's own table, and nothing else (not ${table})`,
    );
  }
  if (Array.isArray(update.fromClause) && update.fromClause.length > 0) {
    return refuse('from', `a guard reads no other table: no FROM (it sees ${GUARD_TABLE} alone)`);
  }
  if (update.returningClause || update.returningList)
    return refuse('returning', 'a guard returns nothing: no RETURNING');
  const alias = isNode(relation.alias) ? String(relation.alias.aliasname) : undefined;
  const names = new Set([GUARD_TABLE, ...(alias ? [alias] : [])]);
  const targets = Array.isArray(update.targetList) ? update.targetList : [];
  for (const target of targets) {
    const res = isNode(target) && isNode(target.ResTarget) ? target.ResTarget : {};
    const column = String(res.name);
    if (!SETTABLE.has(column) || res.indirection) {
      return refuse('column', `a guard sets value and last_token only (not ${column})`);
    }
    const found = checkExpression(res.val, names);
    if (found) return found;
  }
  return (update.whereClause ? checkExpression(update.whereClause, names) : undefined) ?? { ok: true };
}

/** The first thing in an expression that a guard may not hold, if any (depth first, left to right). */
function checkExpression(value: unknown, tables: ReadonlySet<string>): GuardCheck | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = checkExpression(item, tables);
      if (found) return found;
    }
    return undefined;
  }
  if (!isNode(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (/^[A-Z]/.test(key)) {
      const found = checkNode(key, isNode(inner) ? inner : {}, tables);
      if (found) return found;
    }
    if (key === 'typeName') continue; // a cast's type: judged with its TypeCast
    const found = checkExpression(inner, tables);
    if (found) return found;
  }
  return undefined;
}

function checkNode(kind: string, node: Node, tables: ReadonlySet<string>): GuardCheck | undefined {
  if (!EXPRESSIONS.has(kind)) {
    const known = WORDS[kind];
    if (kind === 'FuncCall') {
      const name = strings(node.funcname).join('.');
      return refuse('function-call', `a guard calls no function (it calls ${name})`);
    }
    if (known) return refuse(known.refusal, `a guard may not hold ${known.words}`);
    return refuse('not-allowed', `a guard may not hold ${kind}`);
  }
  if (kind === 'ParamRef') {
    const number = Number(node.number);
    if (number < 1 || number > 3) {
      return refuse('parameter', `a guard has $1 (value), $2 (token) and $3 (row id) only, not $${number}`);
    }
  }
  if (kind === 'ColumnRef') {
    const fields = strings(node.fields);
    const column = fields.at(-1) ?? '?';
    const qualifier = fields.length === 2 ? fields[0] : undefined;
    if (fields.length > 2 || (qualifier !== undefined && !tables.has(qualifier))) {
      return refuse('other-table', `a guard reads ${GUARD_TABLE} only (not ${fields.slice(0, -1).join('.')})`);
    }
    if (!(GUARD_COLUMNS as readonly string[]).includes(column)) {
      return refuse('column', `${GUARD_TABLE} has the columns ${GUARD_COLUMNS.join(', ')} only (not ${column})`);
    }
  }
  if (kind === 'A_Expr') {
    const operator = strings(node.name);
    const known = [
      'AEXPR_OP',
      'AEXPR_DISTINCT',
      'AEXPR_NOT_DISTINCT',
      'AEXPR_IN',
      'AEXPR_BETWEEN',
      'AEXPR_NOT_BETWEEN',
    ];
    const ok =
      known.includes(String(node.kind)) &&
      (String(node.kind).includes('BETWEEN') || (operator.length === 1 && OPERATORS.has(operator[0] ?? '')));
    if (!ok)
      return refuse(
        'operator',
        `a guard compares and counts only (${[...OPERATORS].join(' ')}), not ${operator.join('.')}`,
      );
  }
  if (kind === 'A_Const') {
    const fval = isNode(node.fval) ? String(node.fval.fval) : undefined;
    const sval = isNode(node.sval) ? String(node.sval.sval) : undefined;
    // A string is read as a number when it meets one (`1.5 * '1e65000'` is numeric): judged the same.
    const number = fval ?? (sval !== undefined && /^\s*[+-]?\.?\d/.test(sval) ? sval : undefined);
    const wrong = number === undefined ? undefined : numberWords(number);
    if (wrong)
      return refuse('number', `a guard's numbers have at most ${MAX_NUMBER_DIGITS} digits and no exponent (${wrong})`);
  }
  if (kind === 'TypeCast') {
    const type = isNode(node.typeName) ? node.typeName : {};
    const names = strings(type.names);
    const last = names.at(-1) ?? '?';
    const schemaOk = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog');
    if (!schemaOk || !CAST_TYPES.has(last) || type.arrayBounds || type.typmods) {
      return refuse('cast', `a guard casts to ${[...CAST_TYPES].join(', ')} only (not ${names.join('.')})`);
    }
  }
  return undefined;
}

/** What is wrong with a number constant's text, if anything. */
function numberWords(text: string): string | undefined {
  const bare = text.trim().replace(/^[+-]/, '').replaceAll('_', '');
  const shown = text.length > 24 ? `${text.slice(0, 20)}…` : text;
  const radix = /^0[xob]/i.test(bare);
  if (!radix && /e/i.test(bare)) return `${shown} has an exponent`;
  const digits = (radix ? bare.slice(2) : bare.replace('.', '')).length;
  return digits > MAX_NUMBER_DIGITS ? `${shown} has ${digits}` : undefined;
}

function statementWords(kind: string): string {
  const words: Record<string, string> = {
    SelectStmt: 'a SELECT',
    InsertStmt: 'an INSERT',
    DeleteStmt: 'a DELETE',
    MergeStmt: 'a MERGE',
    VariableSetStmt: 'a SET',
    TransactionStmt: 'a transaction command',
  };
  return words[kind] ?? `a ${kind.replace(/Stmt$/, '')} statement`;
}

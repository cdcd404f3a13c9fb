/**
 * SQL helper functions the compiled updates call (see field-operations.ts). A migration installs
 * them once per app schema (`up: [...SQL_FUNCTIONS]`); `CREATE OR REPLACE` makes that idempotent. They run inside the single `UPDATE ... SET data = <expr>` statement, which is what
 * makes atomic operations atomic: the row lock serialises concurrent writers and each one reads
 * the value the previous one committed.
 */

/**
 * SQLSTATE raised when an op meets a stored value of the wrong type (Increment on a string, Add
 * on an object, a dotted path through a number). The driver-error translator should map it to
 * the catalogue's `incorrectType` (111).
 */
export const TYPE_MISMATCH_SQLSTATE = 'LR111';

/** Names of the installed functions, for migrations that want to check or drop them. */
export const SQL_FUNCTION_NAMES = [
  'larder_num',
  'larder_int',
  'larder_array',
  'larder_add_unique',
  'larder_remove',
  'larder_set_path',
  'larder_path',
  'larder_patch',
] as const;

/**
 * The CREATE OR REPLACE FUNCTION statements, one per element: PGlite's `query()` (extended
 * protocol) refuses several commands in one string. Order matters: SQL-language bodies are
 * checked at creation, so larder_array precedes its callers.
 */
export const SQL_FUNCTIONS: readonly string[] = [
  // A missing or null field counts as 0 (LeanCloud: Increment on a missing field sets the amount).
  `CREATE OR REPLACE FUNCTION larder_num(v jsonb) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
  IF v IS NULL OR jsonb_typeof(v) = 'null' THEN RETURN 0; END IF;
  IF jsonb_typeof(v) = 'number' THEN RETURN v::numeric; END IF;
  RAISE EXCEPTION 'Field set to incorrect type: expected a number, found %.', jsonb_typeof(v)
    USING ERRCODE = '${TYPE_MISMATCH_SQLSTATE}';
END
$fn$`,

  // Results beyond double range would read back as null in every JSON client: refuse them (22003 -> 111).
  `CREATE OR REPLACE FUNCTION larder_finite(n numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
  IF abs(n) > 1.7976931348623157e308 THEN
    RAISE EXCEPTION 'Numeric value out of range.' USING ERRCODE = '22003';
  END IF;
  RETURN n;
END
$fn$`,

  // Bit operations need an integer; 1.5 is a type error, not something to round silently.
  `CREATE OR REPLACE FUNCTION larder_int(v jsonb) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE n numeric := larder_num(v);
BEGIN
  IF n <> trunc(n) THEN
    RAISE EXCEPTION 'Field set to incorrect type: expected an integer, found %.', n
      USING ERRCODE = '${TYPE_MISMATCH_SQLSTATE}';
  END IF;
  RETURN n::bigint;
END
$fn$`,

  // A missing or null field counts as the empty array.
  `CREATE OR REPLACE FUNCTION larder_array(v jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
  IF v IS NULL OR jsonb_typeof(v) = 'null' THEN RETURN '[]'::jsonb; END IF;
  IF jsonb_typeof(v) = 'array' THEN RETURN v; END IF;
  RAISE EXCEPTION 'Field set to incorrect type: expected an array, found %.', jsonb_typeof(v)
    USING ERRCODE = '${TYPE_MISMATCH_SQLSTATE}';
END
$fn$`,

  // Appends the items not already present, each once, in the order given. Uses jsonb equality
  // (=), not containment (@>): [[1,2]] @> [[1]] is true, but [1] is not an element of [[1,2]].
  `CREATE OR REPLACE FUNCTION larder_add_unique(arr jsonb, items jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT larder_array(arr) || coalesce((
    SELECT jsonb_agg(n.e ORDER BY n.i)
    FROM (
      SELECT x.e, min(x.i) AS i
      FROM jsonb_array_elements(items) WITH ORDINALITY AS x(e, i)
      WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(larder_array(arr)) AS c(e) WHERE c.e = x.e)
      GROUP BY x.e
    ) AS n
  ), '[]'::jsonb)
$fn$`,

  // Removes every occurrence of every item (jsonb equality), keeping the order of the rest.
  `CREATE OR REPLACE FUNCTION larder_remove(arr jsonb, items jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(jsonb_agg(x.e ORDER BY x.i), '[]'::jsonb)
  FROM jsonb_array_elements(larder_array(arr)) WITH ORDINALITY AS x(e, i)
  WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(items) AS r(e) WHERE r.e = x.e)
$fn$`,

  // jsonb_set with missing parents created: jsonb_set only creates the last path element.
  // A null parent counts as missing; any other non-object parent is a type error.
  `CREATE OR REPLACE FUNCTION larder_set_path(doc jsonb, path text[], val jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  base jsonb := doc;
BEGIN
  IF path IS NULL OR cardinality(path) = 0 THEN RETURN val; END IF;
  IF base IS NULL OR jsonb_typeof(base) = 'null' THEN base := '{}'::jsonb; END IF;
  IF jsonb_typeof(base) <> 'object' THEN
    RAISE EXCEPTION 'Field set to incorrect type: cannot set "%" inside a %.', path[1], jsonb_typeof(base)
      USING ERRCODE = '${TYPE_MISMATCH_SQLSTATE}';
  END IF;
  IF cardinality(path) = 1 THEN
    RETURN base || jsonb_build_object(path[1], val);
  END IF;
  RETURN base || jsonb_build_object(path[1], larder_set_path(base -> path[1], path[2:], val));
END
$fn$`,

  // A JSON array of strings as text[], keeping the order.
  `CREATE OR REPLACE FUNCTION larder_path(p jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT ARRAY(SELECT x.e FROM jsonb_array_elements_text(p) WITH ORDINALITY AS x(e, n) ORDER BY x.n)
$fn$`,

  // Applies every dotted-path write of one update in a loop. Nesting one larder_set_path call per
  // path instead overflows PGlite's 2 MB parser stack near 250 paths. Paths come as a JSON array
  // of arrays: a text[][] must be rectangular, and paths differ in length.
  `CREATE OR REPLACE FUNCTION larder_patch(doc jsonb, set_paths jsonb, set_values jsonb, delete_paths jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  result jsonb := doc;
BEGIN
  FOR i IN 0 .. jsonb_array_length(set_paths) - 1 LOOP
    result := larder_set_path(result, larder_path(set_paths -> i), set_values -> i);
  END LOOP;
  FOR i IN 0 .. jsonb_array_length(delete_paths) - 1 LOOP
    result := result #- larder_path(delete_paths -> i);
  END LOOP;
  RETURN result;
END
$fn$`,
];

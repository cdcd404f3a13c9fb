/**
 * Geo conditions computed in SQL from the stored GeoPoint JSON, with no extension and no extra
 * column: `$nearSphere` uses the haversine great-circle distance in radians (miles = radians *
 * 3958.8, km = radians * 6371.0, the factors the SDKs use), `$within.$box` compares latitude and
 * longitude ranges. Values that are not GeoPoints never match; the guard is a CASE so the
 * float casts only ever see numbers.
 */
import { sql } from '../../sql/fragment.js';
import { jsonPath } from './field-expr.js';
import { FALSE } from './json-predicates.js';
const toRadians = (degrees) => (degrees * Math.PI) / 180;
/** The jsonb GeoPoint of a target, or undefined when the field cannot hold one. */
function geoValue(target) {
    if (target.kind !== 'json')
        return undefined;
    if (target.type !== undefined && target.type !== 'GeoPoint')
        return undefined;
    return jsonPath(target.path);
}
function isGeoPoint(v) {
    return sql `(${v}->>'__type') = 'GeoPoint' AND jsonb_typeof(${v}->'latitude') = 'number' AND jsonb_typeof(${v}->'longitude') = 'number'`;
}
/**
 * Great-circle distance in radians from `point` to the field's GeoPoint; NULL when the field is
 * not a GeoPoint. `least(1, ...)` keeps asin in its domain despite rounding.
 */
export function distanceExpr(target, point) {
    const v = geoValue(target);
    if (!v)
        return undefined;
    const lat = sql `radians((${v}->>'latitude')::float8)`;
    const lon = sql `radians((${v}->>'longitude')::float8)`;
    const lat0 = toRadians(point.latitude);
    const lon0 = toRadians(point.longitude);
    return sql `(CASE WHEN ${isGeoPoint(v)} THEN 2 * asin(least(1, sqrt(power(sin((${lat} - ${lat0}::float8) / 2), 2) + cos(${lat}) * ${Math.cos(lat0)}::float8 * power(sin((${lon} - ${lon0}::float8) / 2), 2)))) END)`;
}
/** `$nearSphere` with optional bounds in radians: the field is a GeoPoint within the bounds. */
export function compileNear(target, point, maxRadians, minRadians) {
    const distance = distanceExpr(target, point);
    if (!distance)
        return FALSE;
    const tests = [];
    if (maxRadians !== undefined)
        tests.push(sql `${distance} <= ${maxRadians}::float8`);
    if (minRadians !== undefined)
        tests.push(sql `${distance} >= ${minRadians}::float8`);
    if (tests.length === 0)
        return sql `(${distance} IS NOT NULL)`;
    return tests.length === 1 ? sql `(${tests[0]})` : sql `(${tests[0]} AND ${tests[1]})`;
}
/**
 * `$within: {$box: [southwest, northeast]}`, corners inclusive. A southwest longitude east of the
 * northeast one is a box across the 180th meridian: longitudes wrap around.
 */
export function compileBox(target, southwest, northeast) {
    const v = geoValue(target);
    if (!v)
        return FALSE;
    const lat = sql `(${v}->>'latitude')::float8`;
    const lon = sql `(${v}->>'longitude')::float8`;
    const latTest = sql `${lat} BETWEEN ${southwest.latitude}::float8 AND ${northeast.latitude}::float8`;
    const lonTest = southwest.longitude <= northeast.longitude
        ? sql `${lon} BETWEEN ${southwest.longitude}::float8 AND ${northeast.longitude}::float8`
        : sql `(${lon} >= ${southwest.longitude}::float8 OR ${lon} <= ${northeast.longitude}::float8)`;
    return sql `(CASE WHEN ${isGeoPoint(v)} THEN ${latTest} AND ${lonTest} ELSE FALSE END)`;
}
//# sourceMappingURL=compile-geo.js.map
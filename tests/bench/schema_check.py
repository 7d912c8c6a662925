"""A small JSON Schema checker: the subset of draft 2020-12 that bench/schema/record.schema.json
uses. Unknown keywords are an error, so a typo in the schema cannot silently disable a check."""

SUPPORTED = {
    "$schema", "$id", "title", "description", "type", "const", "enum", "required", "properties",
    "additionalProperties", "items", "minItems", "minimum", "maximum", "exclusiveMinimum",
    "$defs", "$ref",
}


def _is_type(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    raise ValueError(f"unknown JSON type {name!r} in schema")


def errors(value, schema, path="$", root=None):
    """All violations of `schema` by `value`, as 'path: message' strings. `root` is the whole
    schema, where "$ref": "#/$defs/NAME" is looked up."""
    root = schema if root is None else root
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise ValueError(f"{path}: unsupported schema keywords {sorted(unknown)}")
    if "$ref" in schema:
        prefix = "#/$defs/"
        if not schema["$ref"].startswith(prefix) or schema["$ref"][len(prefix):] not in root.get("$defs", {}):
            raise ValueError(f"{path}: unresolvable $ref {schema['$ref']!r}")
        return errors(value, root["$defs"][schema["$ref"][len(prefix):]], path, root)
    out = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, t) for t in types):
            return [f"{path}: {value!r} is not of type {types}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} not in {schema['enum']}")
    numeric = _is_type(value, "number")
    if numeric and "minimum" in schema and value < schema["minimum"]:
        out.append(f"{path}: {value} < minimum {schema['minimum']}")
    if numeric and "maximum" in schema and value > schema["maximum"]:
        out.append(f"{path}: {value} > maximum {schema['maximum']}")
    if numeric and "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        out.append(f"{path}: {value} <= exclusive minimum {schema['exclusiveMinimum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{path}: missing required {key!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, sub in value.items():
            if key in props:
                out += errors(sub, props[key], f"{path}.{key}", root)
            elif extra is False:
                out.append(f"{path}: unexpected property {key!r}")
            elif isinstance(extra, dict):
                out += errors(sub, extra, f"{path}.{key}", root)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += errors(item, schema["items"], f"{path}[{i}]", root)
    return out

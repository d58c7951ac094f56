package scenarios

// The committed schema is JSONSchema()'s output; TestSchemaCommitted fails
// when they differ.
//go:generate sh -c "go run ../cmd/faultlab schema > scenario.schema.json"

// Package all registers every driver into drivers.Default; the CLI
// blank-imports it.
package all

import (
	_ "github.com/mentat-spec/mentat-spec/drivers/adapter"
	_ "github.com/mentat-spec/mentat-spec/drivers/duckdb"
	_ "github.com/mentat-spec/mentat-spec/drivers/postgres"
	_ "github.com/mentat-spec/mentat-spec/drivers/sqlite"
)

package postgres

import (
	"errors"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.ConfigValidator = pgDriver{}

// ValidateConfig refuses a backend without a DSN before anything runs,
// naming the knobs that set it in the shipped specs, and an extension
// given as a file.
func (d pgDriver) ValidateConfig(cfg drivers.Config) error {
	if strings.TrimSpace(cfg.Options["dsn"]) == "" {
		return errors.New(`driver ` + d.name + ` has no DSN (option "dsn"): set the spec's pg_dsn variable (-var pg_dsn=postgres://user@host:port/postgres) or the MENTAT_SPEC_PG_DSN environment variable; scripts/pg.sh up starts a throwaway server and prints one`)
	}
	return checkExtensionItems(d.name, cfg.Extensions)
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var (
	_ drivers.SettingsApplier   = (*Backend)(nil)
	_ drivers.ExtensionChecker  = pgDriver{}
	_ drivers.ExtensionReporter = (*Backend)(nil)
)

// checkExtensionItems refuses what CREATE EXTENSION cannot take: a file
// (the server loads its own libraries) or an entry point.
func checkExtensionItems(name string, exts []drivers.Extension) error {
	for _, e := range exts {
		switch {
		case e.Path != "":
			return fmt.Errorf("%s: extension %s: PostgreSQL creates an extension by name (CREATE EXTENSION); its files belong on the server", name, e.Path)
		case e.EntryPoint != "":
			return fmt.Errorf("%s: extension %s: entry_point is not PostgreSQL's", name, e.Name)
		}
	}
	return nil
}

// createExtensionSQL is CREATE EXTENSION IF NOT EXISTS for e.
func createExtensionSQL(e drivers.Extension) string {
	q := "CREATE EXTENSION IF NOT EXISTS " + pgx.Identifier{e.Name}.Sanitize()
	if e.Schema != "" {
		q += " SCHEMA " + pgx.Identifier{e.Schema}.Sanitize()
	}
	if e.Version != "" {
		q += " VERSION " + quoteLiteral(e.Version)
	}
	return q
}

// createExtensions creates the backend's extensions in the benchmark
// database, on a connection of its own without the session setup (which
// may need them).
func (b *Backend) createExtensions(ctx context.Context, exts []drivers.Extension) error {
	if len(exts) == 0 {
		return nil
	}
	cfg := b.connCfg.Copy()
	cfg.AfterConnect = nil
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%s: extensions: connect to database %q: %w", b.name, b.database, err)
	}
	defer closeQuietly(conn)
	for _, e := range exts {
		if _, err := conn.Exec(ctx, createExtensionSQL(e)); err != nil {
			return fmt.Errorf("%s: extension %s in database %q: %w", b.name, e, b.database, err)
		}
	}
	return nil
}

// sessionSetup runs setup on every connection to the benchmark database
// as it opens (pgconn's AfterConnect): sessions, their reconnections, the
// loaders' and the backend's own.
func sessionSetup(name string, setup []string) pgconn.AfterConnectFunc {
	if len(setup) == 0 {
		return nil
	}
	return func(ctx context.Context, c *pgconn.PgConn) error {
		for _, q := range setup {
			if _, err := c.Exec(ctx, q).ReadAll(); err != nil {
				return fmt.Errorf("%s: session setup %q: %w", name, short(q), err)
			}
		}
		return nil
	}
}

// CheckExtensions implements drivers.ExtensionChecker: each extension
// (and version) must be one the server offers (pg_available_extensions),
// which needs no benchmark database.
func (d pgDriver) CheckExtensions(ctx context.Context, cfg drivers.Config) error {
	name := d.name
	if cfg.Backend != "" {
		name = fmt.Sprintf("%s backend %q", d.name, cfg.Backend)
	}
	if err := checkExtensionItems(name, cfg.Extensions); err != nil {
		return err
	}
	o, err := parseOptions(d.name, cfg)
	if err != nil {
		return err
	}
	secrets := dsnSecrets(o.dsn)
	pc, err := pgx.ParseConfig(o.dsn)
	if err != nil {
		return dsnParseError(d.name, o.dsn, err, secrets)
	}
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return redact(fmt.Errorf("%s: checking extensions: connect: %w", name, err), secrets)
	}
	defer closeQuietly(conn)
	for _, e := range cfg.Extensions {
		var n int
		q := "SELECT count(*) FROM pg_available_extension_versions WHERE name = $1 AND ($2 = '' OR version = $2)"
		if err := conn.QueryRow(ctx, q, e.Name, e.Version).Scan(&n); err != nil {
			return redact(fmt.Errorf("%s: extension %s: %w", name, e, err), secrets)
		}
		if n == 0 {
			return fmt.Errorf("%s: extension %s: the server does not have it (no row in pg_available_extension_versions): install its package on the server", name, e)
		}
	}
	return nil
}

// ExtensionFacts implements drivers.ExtensionReporter: extversion and
// schema of each extension, from pg_extension.
func (b *Backend) ExtensionFacts(ctx context.Context) ([]drivers.Fact, error) {
	var facts []drivers.Fact
	err := b.withMeta(ctx, "extension identity", func(c *pgx.Conn) error {
		for i, e := range b.extensions {
			p := "extension." + strconv.Itoa(i) + "."
			facts = append(facts, drivers.Fact{Key: p + "name", Value: e.Name})
			var version, schema string
			err := c.QueryRow(ctx, "SELECT e.extversion, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1", e.Name).Scan(&version, &schema)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				facts = append(facts, drivers.Fact{Key: p + "extversion", Value: "not created"})
			case err != nil:
				return err
			default:
				facts = append(facts, drivers.Fact{Key: p + "extversion", Value: version}, drivers.Fact{Key: p + "schema", Value: schema})
			}
		}
		return nil
	})
	return facts, err
}

// ApplySettings implements drivers.SettingsApplier: on a database Open did
// not create, the extensions are created once the engine has found the
// database is its own (or is to be used as it is), so that refusing a
// foreign database leaves it as it was.
func (b *Backend) ApplySettings(ctx context.Context) error {
	if b.created {
		return nil // created with the database
	}
	return b.redact(b.createExtensions(ctx, b.extensions))
}

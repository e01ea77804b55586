package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var (
	_ drivers.ConfigValidator   = duckDriver{}
	_ drivers.ExtensionChecker  = duckDriver{}
	_ drivers.ExtensionReporter = (*backend)(nil)
)

// checkExtensionItems refuses what DuckDB cannot load: an entry point (a
// DuckDB extension has its own), PostgreSQL's schema and version.
func checkExtensionItems(exts []drivers.Extension) error {
	for _, e := range exts {
		if e.EntryPoint != "" || e.Schema != "" || e.Version != "" {
			return fmt.Errorf("extension %s: entry_point, schema and version are not DuckDB's: name the file or the extension alone", e)
		}
	}
	return nil
}

// loadSQL is the LOAD statement of e: a file by its path, else a name
// DuckDB has built in or installed. The engine never INSTALLs (that
// downloads): an extension that is neither is named by its file.
func loadSQL(e drivers.Extension) string {
	if e.Path != "" {
		return "LOAD " + quoteString(e.Path)
	}
	return "LOAD " + quoteIdent(e.Name)
}

// loadExtensions loads every extension on the connection d. DuckDB loads
// an extension into the database instance; loading it on each connection
// keeps every session's view the same whichever connection came first.
func (b *backend) loadExtensions(ctx context.Context, d *dconn) error {
	for _, e := range b.extensions {
		if err := d.exec(ctx, loadSQL(e)); err != nil {
			return fmt.Errorf("duckdb backend %q: extension %s: %w", b.name, e, err)
		}
	}
	for _, q := range b.setup {
		if err := d.exec(ctx, q); err != nil {
			return b.wrap("session setup", q, err)
		}
	}
	return nil
}

// CheckExtensions implements drivers.ExtensionChecker: it loads every
// extension into an in-memory database, which opens no store.
func (duckDriver) CheckExtensions(ctx context.Context, cfg drivers.Config) error {
	name := cfg.Backend
	if name == "" {
		name = Name
	}
	if err := checkExtensionItems(cfg.Extensions); err != nil {
		return fmt.Errorf("duckdb backend %q: %w", name, err)
	}
	b := &backend{name: name, path: ":memory:", extensions: cfg.Extensions, allowUnsigned: cfg.AllowUnsignedExtensions}
	if err := b.openWith(func(c mapping.Config, msg *string) mapping.State { return mapping.OpenExt("", &b.db, c, msg) }); err != nil {
		return err
	}
	defer mapping.Close(&b.db)
	var c mapping.Connection
	if mapping.Connect(b.db, &c) == mapping.StateError {
		mapping.Disconnect(&c)
		return fmt.Errorf("duckdb backend %q: checking extensions: connect failed", name)
	}
	d := &dconn{c: c}
	defer d.disconnect()
	return b.loadExtensions(ctx, d)
}

// ExtensionFacts implements drivers.ExtensionReporter: each extension's
// row of duckdb_extensions() (loaded, installed, version, install mode
// and path),
// and a loaded file's path and SHA-256.
func (b *backend) ExtensionFacts(ctx context.Context) ([]drivers.Fact, error) {
	var facts []drivers.Fact
	for i, e := range b.extensions {
		p := "extension." + strconv.Itoa(i) + "."
		name := e.Name
		if e.Path != "" {
			facts = append(facts, drivers.FileExtensionFacts(i, e)...)
			name = extensionName(e.Path)
		}
		facts = append(facts, drivers.Fact{Key: p + "name", Value: name})
		rows, err := b.adminQuery(ctx, "extension identity",
			"SELECT loaded::VARCHAR, installed::VARCHAR, coalesce(extension_version, ''), coalesce(install_mode::VARCHAR, ''), coalesce(install_path, '') FROM duckdb_extensions() WHERE extension_name = lower(?)", []any{name})
		if err != nil {
			return facts, err
		}
		if len(rows) == 0 {
			facts = append(facts, drivers.Fact{Key: p + "duckdb_extensions", Value: "no row"})
			continue
		}
		for j, k := range []string{"loaded", "installed", "version", "install_mode", "install_path"} {
			if v := fmt.Sprint(rows[0][j]); v != "" {
				facts = append(facts, drivers.Fact{Key: p + k, Value: v})
			}
		}
	}
	return facts, nil
}

// extensionName is the name DuckDB gives the extension in a file: its
// base name up to the first dot (json.duckdb_extension is json).
func extensionName(path string) string {
	base := filepath.Base(path)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return strings.ToLower(base)
}

// ValidateConfig implements drivers.ConfigValidator: an extension the
// database cannot take in the form given is refused before anything runs.
func (duckDriver) ValidateConfig(cfg drivers.Config) error {
	if err := checkExtensionItems(cfg.Extensions); err != nil {
		return fmt.Errorf("duckdb backend %q: %w", cfg.Backend, err)
	}
	return nil
}

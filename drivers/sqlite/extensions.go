package sqlite

/*
#include <stdlib.h>

struct sqlite3;
int sqlite3_enable_load_extension(struct sqlite3*, int);
int sqlite3_load_extension(struct sqlite3*, const char*, const char*, char**);
void sqlite3_free(void*);

// mentat_load_extension loads file into db with entry point entry (NULL:
// SQLite's own default, sqlite3_extension_init then one named after the
// file), with extension loading enabled only for the call. On an error
// *msg is SQLite's message, freed by the caller with sqlite3_free.
static int mentat_load_extension(struct sqlite3* db, const char* file, const char* entry, char** msg) {
	int rc = sqlite3_enable_load_extension(db, 1);
	if (rc != 0) {
		return rc;
	}
	rc = sqlite3_load_extension(db, file, entry, msg);
	sqlite3_enable_load_extension(db, 0);
	return rc;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var (
	_ drivers.ConfigValidator   = sqliteDriver{}
	_ drivers.ExtensionChecker  = sqliteDriver{}
	_ drivers.ExtensionReporter = (*backend)(nil)
)

// checkExtensionItems refuses what SQLite cannot load: a name without a
// file, or PostgreSQL's schema and version.
func checkExtensionItems(exts []drivers.Extension) error {
	for _, e := range exts {
		switch {
		case e.Path == "":
			return fmt.Errorf("extension %q: SQLite loads a file: give its path", e.Name)
		case e.Schema != "" || e.Version != "":
			return fmt.Errorf("extension %s: schema and version are PostgreSQL's; SQLite loads the file as it is", e.Path)
		}
	}
	return nil
}

// loadExtensions loads every extension into the connection c, in order.
func loadExtensions(c *sqlite3.SQLiteConn, exts []drivers.Extension) error {
	if len(exts) == 0 {
		return nil
	}
	db := dbHandle(c)
	if db == nil {
		return errors.New("the go-sqlite3 connection has no database handle: extensions cannot be loaded")
	}
	for _, e := range exts {
		if err := loadExtension(db, e); err != nil {
			return err
		}
	}
	return nil
}

// loadExtension loads one file into the connection db, with SQLite's own
// error when it cannot.
func loadExtension(db unsafe.Pointer, e drivers.Extension) error {
	if _, err := os.Stat(e.Path); err != nil {
		// SQLite would try the name with a platform suffix; a file the
		// spec names must exist as named.
		return fmt.Errorf("extension %s: %w", e.Path, err)
	}
	file := C.CString(e.Path)
	defer C.free(unsafe.Pointer(file))
	var entry *C.char
	if e.EntryPoint != "" {
		entry = C.CString(e.EntryPoint)
		defer C.free(unsafe.Pointer(entry))
	}
	var msg *C.char
	if rc := C.mentat_load_extension((*C.struct_sqlite3)(db), file, entry, &msg); rc != 0 {
		text := fmt.Sprintf("error code %d", int(rc))
		if msg != nil {
			text = C.GoString(msg)
			C.sqlite3_free(unsafe.Pointer(msg))
		}
		if e.EntryPoint != "" {
			return fmt.Errorf("extension %s (entry point %s): %s", e.Path, e.EntryPoint, text)
		}
		return fmt.Errorf("extension %s: %s", e.Path, text)
	}
	return nil
}

// CheckExtensions implements drivers.ExtensionChecker: it loads every
// extension into a connection to an in-memory database, which opens no
// store.
func (sqliteDriver) CheckExtensions(ctx context.Context, cfg drivers.Config) error {
	name := cfg.Backend
	if name == "" {
		name = Name
	}
	if err := checkExtensionItems(cfg.Extensions); err != nil {
		return fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	dc, err := (&sqlite3.SQLiteDriver{}).Open(":memory:")
	if err != nil {
		return fmt.Errorf("sqlite backend %q: checking extensions: %w", name, err)
	}
	defer dc.Close()
	if err := loadExtensions(dc.(*sqlite3.SQLiteConn), cfg.Extensions); err != nil {
		return fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	return nil
}

// ExtensionFacts implements drivers.ExtensionReporter: each loaded file's
// path and SHA-256.
func (b *backend) ExtensionFacts(context.Context) ([]drivers.Fact, error) {
	var facts []drivers.Fact
	for i, e := range b.extensions {
		facts = append(facts, drivers.FileExtensionFacts(i, e)...)
	}
	return facts, nil
}

// sessionSetup runs the backend's session setup statements on c.
func (b *backend) sessionSetup(c *sqlite3.SQLiteConn) error {
	for _, q := range b.setup {
		if _, err := c.ExecContext(context.Background(), q, nil); err != nil {
			return b.wrap("session setup", q, err)
		}
	}
	return nil
}

// ValidateConfig implements drivers.ConfigValidator: an extension the
// database cannot take in the form given is refused before anything runs.
func (sqliteDriver) ValidateConfig(cfg drivers.Config) error {
	if err := checkExtensionItems(cfg.Extensions); err != nil {
		return fmt.Errorf("sqlite backend %q: %w", cfg.Backend, err)
	}
	return nil
}

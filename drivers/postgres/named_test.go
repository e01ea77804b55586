package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/drivers/internal/pgtest"
	"github.com/mentat-spec/mentat-spec/drivers/postgres"
)

// TestSecondWireDriver: a database that speaks PostgreSQL's protocol gets
// a driver under a name of its own with one registration, which passes
// the conformance suite against the server and names itself in errors.
func TestSecondWireDriver(t *testing.T) {
	dsn := pgtest.DSN(t)
	const name = "wiredb"
	reg := drivers.NewRegistry()
	reg.MustRegister(name, postgres.New(name))

	d, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("%q is not registered", name)
	}
	open := func(t *testing.T, options map[string]string) (drivers.Backend, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return d.Open(ctx, drivers.Config{Backend: name, Scale: "test", Options: options})
	}
	drivertest.Run(t, drivertest.Fixtures{SlowQuery: "SELECT pg_sleep(30)", KnownSetting: "work_mem"}, func(t *testing.T) drivers.Backend {
		var id [6]byte
		if _, err := rand.Read(id[:]); err != nil {
			t.Fatal(err)
		}
		b, err := open(t, map[string]string{"dsn": dsn, "database": "mentat_test_" + hex.EncodeToString(id[:])})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := b.(drivers.Dropper).Drop(context.Background()); err != nil {
				t.Errorf("Drop: %v", err)
			}
		})
		return b
	})

	if _, err := open(t, map[string]string{"dsn": dsn, "nonsense": "1"}); err == nil || !strings.HasPrefix(err.Error(), name+": ") {
		t.Errorf("Open with an unknown option: %v; want an error beginning %q", err, name+": ")
	}
	if err := d.(drivers.ConfigValidator).ValidateConfig(drivers.Config{Backend: name}); err == nil || !strings.Contains(err.Error(), "driver "+name+" has no DSN") {
		t.Errorf("ValidateConfig without a DSN: %v; want it to name driver %s", err, name)
	}
}

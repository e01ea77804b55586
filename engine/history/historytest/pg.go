package historytest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// DSNVar names the environment variable of the throwaway PostgreSQL
// server the tests use (make test starts one).
const DSNVar = "MENTAT_SPEC_PG_DSN"

// DatabasePrefix starts the name of every database CreateDatabase makes:
// what the tests create, and the only thing they drop.
const DatabasePrefix = "mentat_history_test_"

func newName(prefix string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// CreateDatabase creates a fresh database on the server dsn reaches and
// returns its URL and a function that drops it (and nothing else).
func CreateDatabase(dsn string) (dbURL string, drop func() error, err error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	name := newName(DatabasePrefix)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop = func() error {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		return err
	}
	return u.String(), drop, nil
}

// Schema creates a fresh schema in the database dbURL names and returns
// a URL whose search_path is that schema: a history of its own, without
// a database of its own.
func Schema(dbURL string) (string, error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	name := newName("h_")
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("creating schema %s: %w", name, err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

//go:build !unix

package runner

func freeBytes(string) (int64, error) { return 0, errNoStatfs }

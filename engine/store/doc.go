// Package store is a store's lifecycle as the engine sees it, over any
// driver: the meta table that says a store is this tool's and what it
// holds (the engine drops or reloads only stores it finds marked), the
// dataset fingerprint that decides reuse, and the bulk load with its log.
package store

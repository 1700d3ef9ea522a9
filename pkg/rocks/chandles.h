// The C API's handles, for the C++ helpers that reach the objects behind them.
#ifndef ANKUSA_CHANDLES_H
#define ANKUSA_CHANDLES_H

#include <rocksdb/c.h>
#include <rocksdb/db.h>

// The C API's handles hold the C++ objects (db/c.cc); these repeat its definitions.
struct rocksdb_t {
	rocksdb::DB* rep;
};
struct rocksdb_column_family_handle_t {
	rocksdb::ColumnFamilyHandle* rep;
	bool immortal;
};

#endif

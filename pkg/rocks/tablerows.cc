// A bound of what a family holds, read without a pass over its table files' keys.

#include <stdlib.h>
#include <string.h>

#include <memory>

#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/table_properties.h>

#include "chandles.h"
#include "tablerows.h"

char* ankusa_table_rows(rocksdb_t* db, rocksdb_column_family_handle_t* cf, uint64_t* out) {
	for (int i = 0; i < 4; i++) {
		out[i] = 0;
	}
	// The files' properties are written once with each file: what RocksDB keeps of them
	// for its open files, or reads from each file's properties block.
	rocksdb::TablePropertiesCollection props;
	rocksdb::Status s = db->rep->GetPropertiesOfAllTables(cf->rep, &props);
	if (!s.ok()) {
		return strdup(s.ToString().c_str());
	}
	for (const auto& p : props) {
		out[0] += p.second->num_entries;
		out[1] += p.second->num_deletions;
		out[2] += p.second->raw_key_size;
		out[3] += p.second->raw_value_size;
	}
	// The memtables (a WAL replayed at the open, a node stopped without a flush) have no
	// such figures: their keys are read, a write buffer's worth at most. The memtable tier's
	// iterator hides what a newer entry in the memtables deletes or overwrites, and nothing
	// below it: a key of both a memtable and a file is counted in each.
	rocksdb::ReadOptions ro;
	ro.read_tier = rocksdb::kMemtableTier;
	ro.fill_cache = false;
	std::unique_ptr<rocksdb::Iterator> it(db->rep->NewIterator(ro, cf->rep));
	for (it->SeekToFirst(); it->Valid(); it->Next()) {
		out[0]++;
		out[2] += it->key().size() + 8;
		out[3] += it->value().size();
	}
	s = it->status();
	if (!s.ok()) {
		return strdup(s.ToString().c_str());
	}
	return nullptr;
}

# Sourced (by setup.sh, static-build.sh): points cgo at the one RocksDB every binary links,
# tests and release alike, building it first when the cache lacks it (scripts/build-rocksdb.sh:
# upstream RocksDB 11.1.2 as a Release build; about 16 minutes on two cores, once).
#
# RocksDB and its compression libraries are linked statically (only glibc stays dynamic), with
# the grocksdb_no_link tag so that neither grocksdb nor pkg/rocks adds -l flags of its own:
# CGO_LDFLAGS holds all of them. .goreleaser.yaml carries the same flags.
#
# Exports CGO_ENABLED, CGO_CFLAGS, CGO_CXXFLAGS, CGO_LDFLAGS, GOFLAGS (adds the tag) and
# ANKUSA_ROCKSDB_PREFIX (the cache directory: lib/, include/, bin/{ldb,sst_dump,db_bench}).
ANKUSA_ROCKSDB_PREFIX=$(bash "$(dirname "${BASH_SOURCE[0]}")/build-rocksdb.sh")
export ANKUSA_ROCKSDB_PREFIX
export CGO_ENABLED=1
# The cache's headers before /usr/include: a machine may also have Debian's librocksdb-dev. RocksDB 11's
# headers need C++20 (pkg/rocks's C++ includes them).
export CGO_CFLAGS="-I$ANKUSA_ROCKSDB_PREFIX/include" CGO_CXXFLAGS="-std=c++20 -I$ANKUSA_ROCKSDB_PREFIX/include"
export CGO_LDFLAGS="-L$ANKUSA_ROCKSDB_PREFIX/lib -l:librocksdb.a -l:libsnappy.a -l:liblz4.a -l:libzstd.a -l:libz.a -l:libbz2.a -static-libstdc++ -static-libgcc -lm -ldl -pthread"
case " ${GOFLAGS:-} " in
  *grocksdb_no_link*) ;;
  *) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=grocksdb_no_link" ;;
esac

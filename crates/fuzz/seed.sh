#!/bin/sh
# Seeds the (gitignored) cargo-fuzz corpora from the fixtures. Run from the repository root:
#   sh crates/fuzz/seed.sh
# decode:    each fixture kernel's whole code object (the decoder walks every 4-byte step of it)
# codeobj:   the fixture code objects and relocatable objects
# manifest:  the run manifests in fixtures/run
# translate: a header byte (bit 0: wave64, bit 7: no s_endpgm appended) then the .text words of a fixture
set -e
c=crates/fuzz/corpus
mkdir -p $c/decode $c/codeobj $c/manifest $c/translate
for f in fixtures/kernels/*.co fixtures/kernels/*.o; do
  b=$(basename "$f")
  cp "$f" $c/codeobj/"$b"
  cp "$f" $c/decode/"$b"
done
cp fixtures/run/*.toml $c/manifest/
cp crates/fuzz/seeds/manifest/*.toml $c/manifest/ 2>/dev/null || true
for f in fixtures/kernels/*.co; do
  b=$(basename "$f" .co)
  off=$(readelf -SW "$f" | awk '{for(i=1;i<=NF;i++) if($i==".text"){print $(i+3); exit}}')
  size=$(readelf -SW "$f" | awk '{for(i=1;i<=NF;i++) if($i==".text"){print $(i+4); exit}}')
  [ -n "$off" ] || continue
  hdr='\000'; case "$b" in *w64*) hdr='\001';; esac
  { printf "$hdr"; dd if="$f" bs=1 skip=$((0x$off)) count=$((0x$size)) 2>/dev/null | head -c 256; } > $c/translate/"$b"
done

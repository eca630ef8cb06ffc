#!/bin/bash
# Sanity of a board image: the ELF, the raw Image U-Boot's booti loads, the
# FIT (`mkimage -l`: what U-Boot's bootm will read) and (for the Star64) the
# legacy uImage.
#   image_test.sh LLVM_READELF LLVM_NM MKIMAGE LOAD_ADDRESS IMAGE_FILES...
# IMAGE_FILES are the outputs of a board_image/qemu_image target; they are
# told apart by suffix (.elf, .Image, .itb, .dtb, .uImage).
set -uo pipefail
readelf=$1 nm=$2 mkimage=$3 load=$4
shift 4
elf="" image="" uimage="" itb="" dtb=""
for f in "$@"; do
  case "$f" in
    *.elf) elf=$f ;;
    *.Image) image=$f ;;
    *.uImage) uimage=$f ;;
    *.itb) itb=$f ;;
    *.dtb) dtb=$f ;;
  esac
done
fail=0
check() {  # check DESCRIPTION ACTUAL EXPECTED
  if [[ "$2" == "$3" ]]; then
    echo "ok   $1: $2"
  else
    echo "FAIL $1: got '$2', expected '$3'"
    fail=1
  fi
}
le() {  # le FILE OFFSET BYTES: little-endian unsigned integer, as decimal
  local hex
  hex=$(od -An -v -t x1 -j "$2" -N "$3" "$1" | tr -d ' \n' | fold -w2 | tac | tr -d '\n')
  echo $((16#$hex))
}
be() {  # be FILE OFFSET BYTES: big-endian unsigned integer, as decimal
  echo $((16#$(od -An -v -t x1 -j "$2" -N "$3" "$1" | tr -d ' \n')))
}
bytes() { od -An -v -t x1 -j "$2" -N "$3" "$1" | tr -d ' \n'; }

[[ -n "$elf" && -n "$image" && -n "$itb" ]] || { echo "FAIL: need an .elf, an .Image and an .itb among: $*"; exit 1; }
for f in "$elf" "$image" "$itb" ${uimage:+"$uimage"}; do
  [[ -s "$f" ]] || { echo "FAIL: $f is missing or empty"; exit 1; }
done

# --- ELF ---
header=$("$readelf" -h "$elf")
check "ELF class" "$(sed -n 's/^ *Class: *//p' <<<"$header")" "ELF64"
check "machine" "$(sed -n 's/^ *Machine: *//p' <<<"$header")" "RISC-V"
check "type" "$(sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p' <<<"$header")" "EXEC"
entry=$(sed -n 's/^ *Entry point address: *//p' <<<"$header")
check "entry point" "$((entry))" "$((load))"
undefined=$("$nm" -u "$elf")
check "undefined symbols" "${undefined:-none}" "none"

# The extent of everything the kernel occupies in RAM (.bss and stack included).
end=0
while read -r addr size; do
  (( 16#$addr + 16#$size > end )) && end=$(( 16#$addr + 16#$size ))
done < <("$readelf" -S -W "$elf" | awk '$0 ~ /\] / { sub(/.*\] /, ""); if ($7 ~ /A/) print $3, $5 }')
footprint=$(( end - load ))

# --- Image header (64 bytes, RISC-V Linux boot image format) ---
code0=$(le "$image" 0 4)
check "code0 is a 4-byte jal x0 (j)" "$(( code0 & 0xfff ))" "$(( 0x06f ))"
# Decode the J-type immediate: the header must jump to _start.
imm=$(( ((code0 >> 31) & 1) << 20 | ((code0 >> 12) & 0xff) << 12 | ((code0 >> 20) & 1) << 11 | ((code0 >> 21) & 0x3ff) << 1 ))
start=$("$nm" "$elf" | awk '$3 == "_start" { print $1 }')
check "header jumps to _start" "$(( load + imm ))" "$(( 16#$start ))"
check "text_offset" "$(printf '0x%x' "$(le "$image" 8 8)")" "0x200000"
image_size=$(le "$image" 16 8)
check "image_size covers .bss and stack" "$image_size" "$footprint"
check "flags (little-endian kernel)" "$(le "$image" 24 8)" "0"
check "version" "$(printf '0x%x' "$(le "$image" 32 4)")" "0x2"
check "magic" "$(bytes "$image" 48 8)" "5249534356000000"
check "magic2" "$(bytes "$image" 56 4)" "52534305"
file_size=$(stat -L -c %s "$image")
(( file_size <= image_size )) && echo "ok   file size $file_size <= image_size" || { echo "FAIL: Image file ($file_size) larger than image_size ($image_size)"; fail=1; }

# --- uImage (legacy U-Boot header, big-endian) ---
if [[ -n "$uimage" ]]; then
  check "uImage magic" "$(printf '0x%08x' "$(be "$uimage" 0 4)")" "0x27051956"
  check "uImage time (SOURCE_DATE_EPOCH)" "$(be "$uimage" 8 4)" "0"
  check "uImage data size" "$(be "$uimage" 12 4)" "$file_size"
  check "uImage load address" "$(be "$uimage" 16 4)" "$((load))"
  check "uImage entry point" "$(be "$uimage" 20 4)" "$((load))"
  check "uImage os/arch/type/comp" "$(bytes "$uimage" 28 4)" "051a0200"
  if ! cmp -s <(tail -c +65 "$uimage") "$image"; then
    echo "FAIL: uImage payload differs from the Image"
    fail=1
  fi
fi

# --- FIT, as mkimage -l lists it ---
listing=$("$mkimage" -l "$itb")
field() {  # field NAME [NTH]: the value of the NTH "NAME:" line of the listing
  awk -v name="$1" -v nth="${2:-1}" '{
    colon = index($0, ":"); key = substr($0, 1, colon - 1); sub(/^ */, "", key)
    if (colon && key == name && ++n == nth) { value = substr($0, colon + 1); sub(/^ */, "", value); print value; exit }
  }' <<<"$listing"
}
check "FIT created (SOURCE_DATE_EPOCH)" "$(field Created)" "Thu Jan  1 00:00:00 1970"
check "FIT kernel type" "$(field Type)" "Kernel Image"
check "FIT kernel compression" "$(field Compression)" "uncompressed"
check "FIT kernel architecture" "$(field Architecture)" "RISC-V"
check "FIT kernel OS" "$(field OS)" "Linux"
check "FIT kernel load address" "$(field 'Load Address')" "$(printf '0x%08x' "$load")"
check "FIT kernel entry point" "$(field 'Entry Point')" "$(printf '0x%08x' "$load")"
check "FIT kernel data size" "$(field 'Data Size' | sed 's/ Bytes.*//')" "$file_size"
check "FIT kernel hash algo" "$(field 'Hash algo')" "sha256"
check "FIT kernel hash = sha256 of the Image" "$(field 'Hash value')" "$(sha256sum <"$image" | cut -d' ' -f1)"
check "FIT default configuration" "$(field 'Default Configuration')" "'conf-1'"
check "FIT configuration's kernel" "$(field Kernel)" "kernel-1"
if [[ -n "$dtb" ]]; then
  check "FIT device tree type" "$(field Type 2)" "Flat Device Tree"
  check "FIT device tree hash = sha256 of the .dtb" "$(field 'Hash value' 2)" "$(sha256sum <"$dtb" | cut -d' ' -f1)"
  check "FIT configuration's device tree" "$(field FDT)" "fdt-1"
else
  check "FIT without a device tree" "$(field FDT)" ""
fi
echo "$listing" | sed 's/^/     | /'

echo "size: ELF $(stat -L -c %s "$elf") bytes, Image $file_size bytes${uimage:+, uImage $(stat -L -c %s "$uimage") bytes}, in RAM $footprint bytes"
exit $fail

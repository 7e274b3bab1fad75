/*
 * A stand-in for Windows' bcryptprimitives.dll, FOR THE WINE TESTS ONLY (scripts/test-windows).
 *
 * Rust's standard library (1.78 and later) gets its random numbers from ProcessPrng in
 * bcryptprimitives.dll, which every supported Windows has. Debian's Wine 8 has no such DLL, so
 * psebench.exe stops before main() there. This file answers ProcessPrng from advapi32's
 * SystemFunction036 (RtlGenRandom), which Wine does have. It is built by scripts/test-windows into
 * a temporary folder beside a copy of psebench.exe; it is never part of what users install
 * (scripts/build-windows does not build or ship it).
 */
#include <windows.h>

/* RtlGenRandom's real name; declared here to avoid ntsecapi.h's extra definitions. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    /* SystemFunction036 takes a 32-bit length: fill large buffers in pieces. */
    while (length > 0) {
        ULONG piece = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, piece))
            return FALSE;
        data += piece;
        length -= piece;
    }
    return TRUE;
}

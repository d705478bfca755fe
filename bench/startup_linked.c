/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The start-up row's subject (bench/startup.c): a C program that links
 * libhandoff.so and asks it one thing, so that the library is loaded,
 * relocated, its constructors run and one of its functions called. */
#include <handoff.h>

int main(void)
{
    return handoff_version_number() == 0;
}

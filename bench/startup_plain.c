/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The start-up row's baseline (bench/startup.c): a C program that links
 * only the C library and returns. */
int main(void)
{
    return 0;
}

/**
 * What the operators' keyed state shares: snapshots that record and check the state's shape, and a write-back cache
 * of live structures for state backends that store values serialized.
 */
package io.linerate.flink.state;
